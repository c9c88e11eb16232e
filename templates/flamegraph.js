// Interactivity of the flame graph: hover details, click to zoom, reset,
// regex search (Ctrl-F or the "Search" button) with the matched percentage.
// Works offline: the SVG carries everything. Frames are the children of
// <svg id="frames">; each has a <title>, a <rect> with fg:x/fg:w (sample
// coordinates) and a <text>. The settings (fg_nametype, fg_fontsize, ...)
// are written by the renderer just before this script.
"use strict";

var fg = {
	svg: null, frames: null, details: null, unzoombtn: null,
	searchbtn: null, matchedtxt: null, total: 0, width: 0,
	nodes: [], zoomed: null, term: null
};
var FG_NS = "http://github.com/jonhoo/inferno";

function fg_attr(el, name) {
	var v = el.getAttributeNS(FG_NS, name);
	if (v === null || v === "")
		v = el.getAttribute("fg:" + name);
	return v;
}

function fg_name_of(title) {
	var i = title.lastIndexOf(" (");
	return i > 0 ? title.substring(0, i) : title;
}

function init(evt) {
	fg.svg = document.documentElement;
	fg.frames = document.getElementById("frames");
	fg.details = document.getElementById("details").firstChild;
	fg.unzoombtn = document.getElementById("unzoom");
	fg.searchbtn = document.getElementById("search");
	fg.matchedtxt = document.getElementById("matched");
	fg.total = parseFloat(fg.frames.getAttribute("total_samples"));
	fg.width = parseFloat(fg.frames.getAttribute("width"));
	fg.nodes = [];
	var kids = fg.frames.children;
	for (var i = 0; i < kids.length; i++) {
		var g = kids[i];
		var rect = g.querySelector("rect");
		var title = g.querySelector("title");
		if (!rect || !title)
			continue;
		var t = title.textContent;
		g.fgIndex = fg.nodes.length;
		var name = g.getAttribute("data-name");
		fg.nodes.push({
			g: g, rect: rect, text: g.querySelector("text"), title: t,
			name: name !== null ? name : fg_name_of(t),
			x: parseFloat(fg_attr(rect, "x")), w: parseFloat(fg_attr(rect, "w")),
			y: parseFloat(rect.getAttribute("y")),
			fill: rect.getAttribute("fill")
		});
	}
	fg.frames.addEventListener("click", function (e) {
		var n = fg_node_of(e.target);
		if (n) { fg_zoom(n); e.stopPropagation(); e.preventDefault(); }
	});
	fg.frames.addEventListener("mouseover", function (e) {
		var n = fg_node_of(e.target);
		if (n) fg.details.nodeValue = fg_nametype + " " + n.title;
	});
	fg.frames.addEventListener("mouseout", function (e) {
		fg.details.nodeValue = " ";
	});
	fg.unzoombtn.addEventListener("click", function () { fg_unzoom(); });
	fg.searchbtn.addEventListener("click", function () {
		if (fg.term === null) fg_search_prompt(); else fg_reset_search();
	});
	window.addEventListener("keydown", function (e) {
		if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {
			e.preventDefault();
			fg_search_prompt();
		} else if (e.keyCode === 27) {
			fg_reset_search();
			fg_unzoom();
		}
	});
	fg_fit_all();
	var params = new URLSearchParams(window.location.search);
	if (params.get("s"))
		fg_search(params.get("s"));
}

function fg_node_of(el) {
	while (el && el.parentNode !== fg.frames)
		el = el.parentNode;
	if (!el)
		return null;
	return el.fgIndex === undefined ? null : fg.nodes[el.fgIndex];
}

// Shortens a frame's label to what fits in its box (flamegraph.pl's "..").
function fg_fit(n) {
	if (!n.text)
		return;
	var pct = parseFloat(n.rect.getAttribute("width"));
	var px = pct / 100 * fg.width;
	var chars = Math.floor(px / (fg_fontsize * fg_fontwidth));
	var label = "";
	if (chars >= 3)
		label = n.name.length <= chars ? n.name : n.name.substring(0, chars - 2) + "..";
	n.text.textContent = label;
	var x = parseFloat(n.rect.getAttribute("x"));
	n.text.setAttribute("x", (x + 3 / fg.width * 100).toFixed(4) + "%");
}

function fg_fit_all() {
	for (var i = 0; i < fg.nodes.length; i++)
		if (!fg.nodes[i].g.classList.contains("hide"))
			fg_fit(fg.nodes[i]);
}

function fg_place(n, x, w) {
	n.rect.setAttribute("x", x.toFixed(4) + "%");
	n.rect.setAttribute("width", w.toFixed(4) + "%");
}

// Is a an ancestor row of b (closer to the root)?
function fg_below(a, b) {
	return fg_inverted ? a.y < b.y : a.y > b.y;
}

function fg_zoom(node) {
	var x0 = node.x, w0 = node.w, end = x0 + w0;
	fg.zoomed = node;
	fg.unzoombtn.classList.remove("hide");
	for (var i = 0; i < fg.nodes.length; i++) {
		var n = fg.nodes[i], g = n.g;
		g.classList.remove("parent");
		g.classList.remove("hide");
		if (n.x + n.w <= x0 || n.x >= end) {
			g.classList.add("hide");
		} else if (fg_below(n, node)) {
			g.classList.add("parent");
			fg_place(n, 0, 100);
		} else {
			/* the clicked frame and its descendants (rows above it that
			 * overlap its span lie inside it) */
			fg_place(n, (n.x - x0) / w0 * 100, n.w / w0 * 100);
		}
	}
	fg_place(node, 0, 100);
	fg_fit_all();
	fg_update_matched();
}

function fg_unzoom() {
	fg.zoomed = null;
	fg.unzoombtn.classList.add("hide");
	for (var i = 0; i < fg.nodes.length; i++) {
		var n = fg.nodes[i];
		n.g.classList.remove("parent");
		n.g.classList.remove("hide");
		fg_place(n, n.x / fg.total * 100, n.w / fg.total * 100);
	}
	fg_fit_all();
	fg_update_matched();
}

function fg_search_prompt() {
	var term = window.prompt("Enter a search term (regexp allowed, eg: ^ext4_)",
				 fg.term === null ? "" : fg.term);
	if (term !== null && term !== "")
		fg_search(term);
}

function fg_reset_search() {
	fg.term = null;
	for (var i = 0; i < fg.nodes.length; i++) {
		fg.nodes[i].rect.setAttribute("fill", fg.nodes[i].fill);
		fg.nodes[i].matched = false;
	}
	fg.searchbtn.classList.remove("show");
	fg.searchbtn.firstChild.nodeValue = "Search";
	fg.matchedtxt.classList.add("hide");
	fg.matchedtxt.firstChild.nodeValue = " ";
}

function fg_search(term) {
	var re;
	try {
		re = new RegExp(term);
	} catch (e) {
		fg.matchedtxt.classList.remove("hide");
		fg.matchedtxt.firstChild.nodeValue = "Bad regexp: " + e.message;
		return;
	}
	fg.term = term;
	for (var i = 0; i < fg.nodes.length; i++) {
		var n = fg.nodes[i];
		n.matched = re.test(n.name);
		n.rect.setAttribute("fill", n.matched ? fg_searchcolor : n.fill);
	}
	fg.searchbtn.classList.add("show");
	fg.searchbtn.firstChild.nodeValue = "Reset Search";
	fg_update_matched();
}

// The share of samples under any matching frame, within the zoomed frame
// (or the whole graph). Nested matches count once: intervals are merged.
function fg_update_matched() {
	if (fg.term === null)
		return;
	var lo = fg.zoomed ? fg.zoomed.x : 0;
	var hi = fg.zoomed ? fg.zoomed.x + fg.zoomed.w : fg.total;
	var spans = [];
	for (var i = 0; i < fg.nodes.length; i++) {
		var n = fg.nodes[i];
		if (!n.matched)
			continue;
		var a = Math.max(n.x, lo), b = Math.min(n.x + n.w, hi);
		if (b > a)
			spans.push([a, b]);
	}
	spans.sort(function (p, q) { return p[0] - q[0]; });
	var sum = 0, cur = -1;
	for (var j = 0; j < spans.length; j++) {
		var s = Math.max(spans[j][0], cur);
		if (spans[j][1] > s)
			sum += spans[j][1] - s;
		cur = Math.max(cur, spans[j][1]);
	}
	var pct = hi > lo ? sum / (hi - lo) * 100 : 0;
	fg.matchedtxt.classList.remove("hide");
	fg.matchedtxt.firstChild.nodeValue = "Matched: " + pct.toFixed(1) + "%";
}
