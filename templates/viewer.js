// The HTML flame-graph viewer: reads the data elements the renderer wrote
// (fg-opts, fg-names, fg-colors, fg-nodes; their format is described in
// src/lib/render/htmlout.c), builds the tree once in typed arrays and
// draws on a canvas only the frames wide enough to see. Views: flame
// graph, icicle, sandwich (callers above, callees below one function),
// table of functions. Zoom, search, selection and view live in
// location.hash. window.flamegraph describes the view (docs/html-viewer.md).
"use strict";
(function () {
	var t0 = performance.now(), timings = {};
	var opts = JSON.parse(document.getElementById("fg-opts").textContent);
	var names = JSON.parse(document.getElementById("fg-names").textContent);
	var colorText = document.getElementById("fg-colors").textContent;
	var PAD = 10;
	var fh = opts.frameHeight, fontSize = opts.fontSize;
	var charW = fontSize * opts.fontWidth;
	var font = fontSize + "px " + opts.fontType + ", sans-serif";
	var total = opts.samples, timemax = opts.timemax > 0 ? opts.timemax : opts.samples;

	// ---- the tree, in pre-order ------------------------------------------
	var T = parseNodes(document.getElementById("fg-nodes").textContent, opts.differential);
	var N = T.n;
	timings.parse = performance.now() - t0;

	function parseNodes(s, diff) {
		var len = s.length, n = 0, i;
		for (i = 0; i < len; i++)
			if (s.charCodeAt(i) === 59)
				n++;
		var t = {
			n: n, parent: new Int32Array(n), name: new Int32Array(n), depth: new Int32Array(n),
			end: new Int32Array(n), x: new Float64Array(n), w: new Float64Array(n),
			self: new Float64Array(n), delta: diff ? new Float64Array(n) : null, maxDepth: 0
		};
		var cap = 256, next = new Float64Array(cap + 2), stack = new Int32Array(cap + 1), vals = [0, 0, 0, 0, 0];
		var field = 0, v = 0, neg = false, k = 0, prev = -1;
		for (i = 0; i < len; i++) {
			var c = s.charCodeAt(i);
			if (c === 44) {
				vals[field++] = neg ? -v : v;
				v = 0;
				neg = false;
			} else if (c === 59) {
				vals[field] = neg ? -v : v;
				v = 0;
				neg = false;
				// NAME,WIDTH | UP,NAME,WIDTH | UP,NAME,WIDTH,GAP (+ DELTA)
				var nf = field + 1 - (diff ? 1 : 0), up = 0, gap = 0, b = 0;
				if (nf >= 3) {
					up = vals[0];
					b = 1;
				}
				if (nf === 4)
					gap = vals[3];
				var delta = diff ? vals[field] : 0;
				field = 0;
				var d = prev + 1 - up;
				for (var j = prev; j >= d; j--)
					t.end[stack[j]] = k;
				var x = next[d] + gap, w = vals[b + 1];
				t.depth[k] = d;
				t.name[k] = vals[b];
				t.x[k] = x;
				t.w[k] = w;
				t.self[k] = w;
				if (diff)
					t.delta[k] = opts.negate ? -delta : delta;
				if (d > 0) {
					t.parent[k] = stack[d - 1];
					t.self[stack[d - 1]] -= w;
				} else {
					t.parent[k] = -1;
				}
				if (d >= cap) {
					var n2 = new Float64Array(cap * 2 + 2), s2 = new Int32Array(cap * 2 + 1);
					n2.set(next);
					s2.set(stack);
					next = n2;
					stack = s2;
					cap *= 2;
				}
				stack[d] = k;
				next[d] = x + w;
				next[d + 1] = x;
				if (d > t.maxDepth)
					t.maxDepth = d;
				prev = d;
				k++;
			} else if (c === 45) {
				neg = true;
			} else {
				v = v * 36 + (c <= 57 ? c - 48 : c - 87);
			}
		}
		for (j = prev; j >= 0; j--)
			t.end[stack[j]] = k;
		return t;
	}

	// ---- functions: names merged (a cold copy of a name is the same function)
	var funcOfName = new Int32Array(names.length), funcNames = [], funcIndex = new Map();
	names.forEach(function (nm, i) {
		var f = funcIndex.get(nm);
		if (f === undefined) {
			f = funcNames.length;
			funcNames.push(nm);
			funcIndex.set(nm, f);
		}
		funcOfName[i] = f;
	});
	var NF = funcNames.length;
	var funcOf = new Int32Array(N);
	for (var i0 = 0; i0 < N; i0++)
		funcOf[i0] = funcOfName[T.name[i0]];

	// ---- colours ---------------------------------------------------------
	var cold = new Uint8Array(names.length);
	opts.cold.forEach(function (i) { cold[i] = 1; });
	// colours are 0xRRGGBB numbers until they are drawn
	var nameColor = new Int32Array(names.length);
	for (var c0 = 0; c0 < names.length; c0++)
		nameColor[c0] = colorText.length >= 6 * (c0 + 1) ? parseInt(colorText.substr(6 * c0, 6), 16) : 0xdddddd;
	var funcColor = new Int32Array(names.length).fill(-1);
	for (c0 = 0; c0 < names.length; c0++)
		if (funcColor[funcOfName[c0]] < 0)
			funcColor[funcOfName[c0]] = nameColor[c0];

	function rgb(r, g, b) { return r << 16 | g << 8 | b; }
	function diffColor(d) {
		if (d === 0 || !(opts.maxdelta > 0))
			return rgb(250, 250, 250);
		var k = Math.max(0, Math.floor(210 * (opts.maxdelta - Math.abs(d)) / opts.maxdelta));
		return d > 0 ? rgb(255, k, k) : rgb(k, k, 255);
	}

	function nodeColor(i) {
		if (T.delta)
			return diffColor(T.delta[i]);
		if (opts.colorDiffusion && !cold[T.name[i]]) {
			var k = Math.floor(255 - 155 * Math.sqrt(T.w[i] / timemax));
			return rgb(255, k, k);
		}
		return nameColor[T.name[i]];
	}

	function cssColor(c) { return "#" + (0x1000000 + c).toString(16).substring(1); }

	// ---- per-function totals: self, and total counted once per stack ------
	var fSelf = null, fTotal = null, outer = null;
	// made when first needed: the table, a sandwich
	function functionTotals() {
		if (fSelf)
			return;
		fSelf = new Float64Array(NF);
		fTotal = new Float64Array(NF);
		outer = new Uint8Array(N);
		var open = new Int32Array(NF), stack = [];
		for (var i = 0; i < N; i++) {
			var d = T.depth[i];
			while (stack.length > d)
				open[funcOf[stack.pop()]]--;
			var f = funcOf[i];
			fSelf[f] += T.self[i];
			if (open[f] === 0) {
				fTotal[f] += T.w[i];
				outer[i] = 1;
			}
			open[f]++;
			stack.push(i);
		}
	}

	timings.tree = performance.now() - t0;

	// ---- the page --------------------------------------------------------
	function el(tag, attrs, text) {
		var e = document.createElement(tag);
		for (var k in attrs)
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = text;
		return e;
	}
	document.body.style.background = "linear-gradient(" + opts.bg1 + ", " + opts.bg2 + ")";
	document.body.style.minHeight = "100vh";
	if (opts.uiColor)
		document.body.style.color = opts.uiColor;
	var head = el("div", { id: "fg-head" });
	head.appendChild(el("div", { id: "fg-title" }, opts.title));
	if (opts.subtitle)
		head.appendChild(el("div", { id: "fg-subtitle" }, opts.subtitle));
	if (opts.notes)
		head.title = opts.notes;
	var bar = el("div", { id: "fg-bar" });
	var btn = {};
	[["reset", "Reset zoom"], ["back", "Back"], ["flame", "Flame"], ["icicle", "Icicle"],
	 ["sandwich", "Sandwich"], ["table", "Table"]].forEach(function (b) {
		btn[b[0]] = el("button", { id: "fg-" + b[0], type: "button" }, b[1]);
		bar.appendChild(btn[b[0]]);
	});
	bar.appendChild(el("span", { "class": "fg-space" }));
	var search = el("input", { id: "fg-search", type: "search", placeholder: "Search (regex, /)",
				    spellcheck: "false" });
	bar.appendChild(search);
	btn.prev = el("button", { id: "fg-prev", type: "button", title: "previous match" }, "\u25c0");
	btn.next = el("button", { id: "fg-next", type: "button", title: "next match" }, "\u25b6");
	bar.appendChild(btn.prev);
	bar.appendChild(btn.next);
	var matchedEl = el("span", { id: "fg-matched" }, "");
	bar.appendChild(matchedEl);
	var sandLabel = el("div", { id: "fg-sandwich-label", "class": "fg-hidden" });
	var main = el("div", { id: "fg-main" });
	var canvas = el("canvas", { id: "fg-canvas" });
	main.appendChild(canvas);
	var details = el("div", { id: "fg-details" }, " ");
	var tableWrap = el("div", { id: "fg-table-wrap", "class": "fg-hidden" });
	var table = el("table", { id: "fg-functions" });
	tableWrap.appendChild(table);
	[head, bar, sandLabel, main, details, tableWrap].forEach(function (e) { document.body.appendChild(e); });
	var ctx = canvas.getContext("2d", { alpha: false });

	// ---- state -----------------------------------------------------------
	var st = {
		view: opts.inverted ? "icicle" : "flame",
		zoom: -1,          // node index, -1: none
		sel: -1,           // selected node (arrows), -1: none
		func: -1,          // the sandwich's function, -1: none
		re: null, pattern: "",
		matched: null,     // Uint8Array over names
		matchList: [],     // matched nodes in order
		matchAt: -1,
		hover: null,
		sortKey: "total", sortDesc: true
	};
	var lastFlameView = st.view;
	var paints = 0, lastPaintMs = 0;
	var drawn = { n: 0, node: new Int32Array(1024), x: new Float32Array(1024), y: new Float32Array(1024),
		      w: new Float32Array(1024), color: new Int32Array(1024), tree: [] };

	// ---- search ----------------------------------------------------------
	function setSearch(pattern) {
		st.pattern = pattern;
		st.re = null;
		st.matched = null;
		st.matchList = [];
		st.matchAt = -1;
		search.classList.remove("fg-bad");
		if (pattern) {
			try {
				st.re = new RegExp(pattern);
			} catch (e) {
				search.classList.add("fg-bad");
			}
		}
		if (st.re) {
			st.matched = new Uint8Array(names.length);
			for (var i = 0; i < names.length; i++)
				st.matched[i] = st.re.test(names[i]) ? 1 : 0;
			for (i = 0; i < N; i++)
				if (st.matched[T.name[i]])
					st.matchList.push(i);
		}
		if (search.value !== pattern)
			search.value = pattern;
	}

	// the matched samples, each counted once (a match inside a match is not
	// counted again)
	function matchedWeight() {
		if (!st.matched)
			return 0;
		var sum = 0;
		for (var i = 0; i < N;) {
			if (st.matched[T.name[i]]) {
				sum += T.w[i];
				i = T.end[i];
			} else {
				i++;
			}
		}
		return sum;
	}

	function searchState() {
		if (!st.re)
			return null;
		var w = matchedWeight();
		return { pattern: st.pattern, matches: st.matchList.length, share: total ? w / total : 0, weight: w };
	}

	function showMatched() {
		var s = searchState();
		matchedEl.textContent = s ? s.matches + " matched, " + pct(s.share * 100) + "%" +
			(st.matchAt >= 0 ? " (" + (st.matchAt + 1) + "/" + s.matches + ")" : "") : "";
	}

	function gotoMatch(step) {
		var n = st.matchList.length;
		if (!n)
			return;
		st.matchAt = st.matchAt < 0 ? (step > 0 ? 0 : n - 1) : (st.matchAt + step + n) % n;
		var i = st.matchList[st.matchAt];
		st.sel = i;
		if (st.zoom >= 0 && !(i >= st.zoom && i < T.end[st.zoom]))
			st.zoom = -1;
		if (st.view !== "flame" && st.view !== "icicle")
			st.view = lastFlameView;
		commit(false);
	}

	// ---- numbers ---------------------------------------------------------
	function group(v) {
		var s = String(Math.round(v)), out = "", k = s.charAt(0) === "-" ? 1 : 0;
		for (var i = s.length; i > k + 3; i -= 3)
			out = "," + s.substring(i - 3, i) + out;
		return s.substring(0, i) + out;
	}
	function pct(v) { return v.toFixed(2); }

	// ---- hover -----------------------------------------------------------
	function hoverOf(tree, i) {
		var w = tree.w[i], zw = st.zoom >= 0 && tree === T ? T.w[st.zoom] : (tree === T ? total : tree.w[0]);
		// an ancestor of the zoomed frame is drawn whole width but holds more
		// than it: no share of it to tell
		var above = tree === T && st.zoom >= 0 && i < st.zoom && T.end[i] >= T.end[st.zoom];
		var h = { name: tree === T ? names[T.name[i]] : funcNames[tree.func[i]], weight: w * opts.factor,
			  share: total ? w / total : 0, zoomShare: above ? null : zw ? w / zw : 0, delta: null };
		if (tree === T && T.delta)
			h.delta = T.delta[i] * opts.factor;
		return h;
	}

	function detailText(h) {
		var s = opts.nameType + " " + h.name + " (" + group(h.weight) + " " + opts.countName + ", " +
			pct(h.share * 100) + "%";
		if ((st.zoom >= 0 || st.view === "sandwich") && h.zoomShare !== null)
			s += ", " + pct(h.zoomShare * 100) + "% of " + (st.view === "sandwich" ? "the function" : "the zoomed frame");
		if (h.delta !== null) {
			var d = total ? h.delta / opts.factor * 100 / total : 0;
			s += "; " + (d > 0 ? "+" : "") + pct(d) + "%";
		}
		return s + ")";
	}

	// ---- drawing ---------------------------------------------------------
	// Frames are filled into an ImageData of device pixels (one typed-array
	// fill per row of a frame: far cheaper than a fillRect and a fillStyle
	// each), put on the canvas at once; labels and outlines are drawn over it.
	var cssW = 0, cssH = 0, dpr = 1, img = null, pix = null, devW = 0, devH = 0, bgRows = null, rowEnd = null;
	var dirtyTop = 0, dirtyBottom = 0;
	var littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

	function pixel(c) {
		var r = c >> 16 & 255, g = c >> 8 & 255, b = c & 255;
		return littleEndian ? (0xff000000 | b << 16 | g << 8 | r) >>> 0 : ((r << 24 | g << 16 | b << 8 | 255) >>> 0);
	}

	// a CSS colour as 0xRRGGBB, as the canvas reads it
	function parseColor(css, fallback) {
		if (!css)
			return fallback;
		ctx.fillStyle = "#010203";
		ctx.fillStyle = css;
		var v = ctx.fillStyle;
		return /^#[0-9a-f]{6}$/i.test(v) ? parseInt(v.substring(1), 16) : fallback;
	}
	var searchColor = parseColor(opts.searchColor, rgb(230, 0, 230));
	var strokeColor = opts.strokeColor ? parseColor(opts.strokeColor, -1) : -1;
	var bg1 = parseColor(opts.bg1, 0xeeeeee), bg2 = parseColor(opts.bg2, 0xeeeeb0);

	function minPx() {
		var wpx = cssW - 2 * PAD;
		return opts.minWidthPercent ? opts.minWidth / 100 * wpx : opts.minWidth;
	}

	function sizeCanvas(rows) {
		var w = Math.max(100, main.clientWidth - 2 * PAD);
		var h = rows * fh + 2 * fh;
		// a canvas has at most 32 767 pixels a side: a very deep graph is
		// drawn at a lower resolution
		dpr = Math.min(window.devicePixelRatio || 1, 32000 / h);
		if (w !== cssW || h !== cssH || devW !== Math.round(w * dpr)) {
			cssW = w;
			cssH = h;
			devW = Math.round(w * dpr);
			devH = Math.round(h * dpr);
			canvas.style.height = h + "px";
			canvas.width = devW;
			canvas.height = devH;
			img = ctx.createImageData(devW, devH);
			pix = new Uint32Array(img.data.buffer);
			bgRows = new Uint32Array(devH);
			// the background gradient, from 5% to 95% of the height
			for (var y = 0; y < devH; y++) {
				var t = Math.min(1, Math.max(0, (y / devH - 0.05) / 0.9));
				var mix = function (sh) {
					var a = bg1 >> sh & 255, b = bg2 >> sh & 255;
					return Math.round(a + (b - a) * t);
				};
				bgRows[y] = pixel(rgb(mix(16), mix(8), mix(0)));
			}
		}
		// only the rows in sight are painted, and put on the canvas
		var vr = visibleRange();
		dirtyTop = Math.max(0, Math.floor(vr[0] * dpr));
		dirtyBottom = Math.min(devH, Math.ceil(vr[1] * dpr));
		for (var r = dirtyTop; r < dirtyBottom; r++)
			pix.fill(bgRows[r], r * devW, (r + 1) * devW);
		if (!rowEnd || rowEnd.length !== devH)
			rowEnd = new Int32Array(devH);
		rowEnd.fill(0);
	}

	// Fills a frame's box; false when it is not drawn. Frames come left to
	// right in each row: a frame within a device pixel its left neighbour
	// already coloured is not drawn (at the graph's default detail most
	// frames are far narrower than a pixel), nor is one out of the canvas.
	function fillBox(x, y, w, c) {
		var x0 = Math.round(x * dpr), x1 = Math.round((x + w) * dpr);
		var y0 = Math.round(y * dpr), y1 = Math.round((y + fh - 1) * dpr);
		if (y0 < 0)
			y0 = 0;
		if (y1 > devH)
			y1 = devH;
		if (y0 >= y1)
			return false;
		if (x1 <= x0)
			x1 = x0 + 1;
		if (x1 > devW)
			x1 = devW;
		var done = rowEnd[y0];
		if (x1 <= done)
			return false;
		if (x0 < done)
			x0 = done;
		rowEnd[y0] = x1;
		var p = pixel(c), yy, k;
		if (x1 - x0 <= 8) {
			for (yy = y0; yy < y1; yy++)
				for (k = yy * devW + x0; k < yy * devW + x1; k++)
					pix[k] = p;
		} else {
			for (yy = y0; yy < y1; yy++)
				pix.fill(p, yy * devW + x0, yy * devW + x1);
		}
		if (strokeColor >= 0 && x1 - x0 > 2) {
			var s = pixel(strokeColor);
			pix.fill(s, y0 * devW + x0, y0 * devW + x1);
			pix.fill(s, (y1 - 1) * devW + x0, (y1 - 1) * devW + x1);
			for (yy = y0; yy < y1; yy++) {
				pix[yy * devW + x0] = s;
				pix[yy * devW + x1 - 1] = s;
			}
		}
		return true;
	}

	function record(tree, i, x, y, w, color) {
		var n = drawn.n;
		if (n === drawn.node.length) {
			var grow = function (a, T2) { var b = new T2(a.length * 2); b.set(a); return b; };
			drawn.node = grow(drawn.node, Int32Array);
			drawn.x = grow(drawn.x, Float32Array);
			drawn.y = grow(drawn.y, Float32Array);
			drawn.w = grow(drawn.w, Float32Array);
			drawn.color = grow(drawn.color, Int32Array);
		}
		drawn.node[n] = i;
		drawn.x[n] = x;
		drawn.y[n] = y;
		drawn.w[n] = w;
		drawn.color[n] = color;
		drawn.tree[n] = tree;
		drawn.n = n + 1;
	}

	function label(name, x, y, w) {
		var fit = Math.floor((w - 3) / charW);
		if (fit < 3)
			return;
		var text = name.length <= fit ? name : name.substring(0, fit - 2) + "..";
		ctx.fillText(text, x + 3, y + (fh - 1) / 2);
	}

	// Draws tree's frames under root (its ancestors too, full width), the
	// root spanning the width; rowY(depth) gives a frame's top. Labels are
	// left in labels, drawn once the pixels are on the canvas.
	function drawTree(tree, root, rowY, viewTop, viewBottom, labels) {
		var wpx = cssW - 2 * PAD;
		var x0 = root >= 0 ? tree.x[root] : 0;
		var span = root >= 0 ? tree.w[root] : (tree === T ? timemax : tree.w[0]);
		var scale = wpx / span, min = minPx(), minLabel = 3 * charW + 3;
		var matched = tree === T ? st.matched : null;
		function one(i, x, w) {
			var y = rowY(tree.depth[i]);
			if (y + fh < viewTop || y > viewBottom)
				return;
			var color = matched && matched[tree.name[i]] ? searchColor :
				tree === T ? nodeColor(i) : tree.color(i);
			if (!fillBox(x, y, w, color))
				return;
			record(tree, i, x, y, w, color);
			if (w >= minLabel)
				labels.push(drawn.n - 1);
		}
		if (root >= 0)
			for (var a = tree.parent[root]; a >= 0; a = tree.parent[a])
				one(a, PAD, wpx);
		var start = root >= 0 ? root : 0, stop = root >= 0 ? tree.end[root] : tree.n;
		// children lie one row further: up (flame) or down (icicle); a
		// frame past the edge in sight that way has its subtree past it too
		var up = rowY(1) < rowY(0);
		for (var i = start; i < stop;) {
			var w = tree.w[i] * scale;
			if (w < min) {
				i = tree.end[i];
				continue;
			}
			var y = rowY(tree.depth[i]);
			if (up ? y + fh < viewTop : y > viewBottom) {
				i = tree.end[i];
				continue;
			}
			one(i, PAD + (tree.x[i] - x0) * scale, w);
			i++;
		}
	}

	function finishPaint(labels) {
		if (dirtyBottom > dirtyTop)
			ctx.putImageData(img, 0, 0, 0, dirtyTop, devW, dirtyBottom - dirtyTop);
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.font = font;
		ctx.textBaseline = "middle";
		ctx.fillStyle = "#000";
		for (var k = 0; k < labels.length; k++) {
			var d = labels[k], t = drawn.tree[d], n = drawn.node[d];
			label(t === T ? names[T.name[n]] : funcNames[t.func[n]], drawn.x[d], drawn.y[d], drawn.w[d]);
		}
		if (st.sel < 0)
			return;
		for (d = 0; d < drawn.n; d++) {
			if (drawn.tree[d] === T && drawn.node[d] === st.sel) {
				ctx.strokeStyle = "#000";
				ctx.lineWidth = 2;
				ctx.strokeRect(drawn.x[d] + 1, drawn.y[d] + 1, Math.max(drawn.w[d] - 2, 1), fh - 3);
				ctx.lineWidth = 1;
			}
		}
	}

	// the rows in sight: the canvas scrolls inside #fg-main, the page in
	// the window
	function visibleRange() {
		var r = canvas.getBoundingClientRect(), m = main.getBoundingClientRect();
		var top = Math.max(m.top, 0), bottom = Math.min(m.bottom, window.innerHeight);
		return [top - r.top - fh, bottom - r.top + fh];
	}

	function paint() {
		var t0 = performance.now();
		drawn.n = 0;
		drawn.tree.length = 0;
		var isTable = st.view === "table";
		main.classList.toggle("fg-hidden", isTable);
		tableWrap.classList.toggle("fg-hidden", !isTable);
		sandLabel.classList.toggle("fg-hidden", st.view !== "sandwich");
		if (isTable) {
			fillTable();
		} else if (st.view === "sandwich") {
			paintSandwich();
		} else {
			var rows = T.maxDepth + 1, icicle = st.view === "icicle";
			sizeCanvas(rows);
			var vr = visibleRange(), labels = [];
			drawTree(T, st.zoom, icicle ? function (d) { return fh / 2 + d * fh; } :
				 function (d) { return cssH - fh / 2 - (d + 1) * fh; }, vr[0], vr[1], labels);
			finishPaint(labels);
		}
		showMatched();
		btn.reset.disabled = st.zoom < 0;
		btn.back.disabled = st.zoom < 0;
		["flame", "icicle", "sandwich", "table"].forEach(function (v) {
			btn[v].setAttribute("aria-pressed", String(st.view === v));
		});
		paints++;
		lastPaintMs = performance.now() - t0;
	}

	// ---- sandwich --------------------------------------------------------
	// A merged tree of functions as plain arrays in pre-order, like T.
	function mergedTree(f, callers) {
		functionTotals();
		var kids = [new Map()], func = [f], w = [0], parent = [-1];
		function child(p, g) {
			var m = kids[p], c = m.get(g);
			if (c === undefined) {
				c = func.length;
				m.set(g, c);
				kids.push(new Map());
				func.push(g);
				w.push(0);
				parent.push(p);
			}
			return c;
		}
		for (var i = 0; i < N; i++) {
			if (funcOf[i] !== f || !outer[i])
				continue;
			var wt = T.w[i];
			w[0] += wt;
			if (callers) {
				var p = 0;
				for (var a = T.parent[i]; a >= 0; a = T.parent[a]) {
					p = child(p, funcOf[a]);
					w[p] += wt;
				}
			} else {
				// the callees: the subtree, merged by function
				var map = [0], stop = T.end[i];
				for (var j = i + 1; j < stop; j++) {
					var d = T.depth[j] - T.depth[i];
					var c = child(map[d - 1], funcOf[j]);
					w[c] += T.w[j];
					map[d] = c;
				}
			}
		}
		// to pre-order, heaviest first
		var n = func.length, t = {
			n: n, func: new Int32Array(n), name: new Int32Array(n), parent: new Int32Array(n),
			depth: new Int32Array(n), end: new Int32Array(n), x: new Float64Array(n),
			w: new Float64Array(n), maxDepth: 0,
			color: function (i) { return funcColor[t.func[i]]; }
		};
		var k = 0;
		(function walk(src, dst, depth, x) {
			var me = k++;
			t.func[me] = func[src];
			t.name[me] = -1;
			t.parent[me] = dst;
			t.depth[me] = depth;
			t.x[me] = x;
			t.w[me] = w[src];
			if (depth > t.maxDepth)
				t.maxDepth = depth;
			var cs = Array.from(kids[src].values()).sort(function (a, b) { return w[b] - w[a]; });
			for (var q = 0; q < cs.length; q++) {
				walk(cs[q], me, depth + 1, x);
				x += w[cs[q]];
			}
			t.end[me] = k;
		})(0, -1, 0, 0);
		return t;
	}

	var sandCache = null;
	function sandwichTrees() {
		if (st.func < 0)
			return null;
		if (!sandCache || sandCache.f !== st.func)
			sandCache = { f: st.func, callers: mergedTree(st.func, true), callees: mergedTree(st.func, false) };
		return sandCache;
	}

	function paintSandwich() {
		var s = sandwichTrees();
		if (!s) {
			sizeCanvas(1);
			finishPaint([]);
			sandLabel.textContent = "Sandwich: pick a function (click a frame, a table row, or select one and press s)";
			return;
		}
		sandLabel.textContent = "Sandwich: " + funcNames[s.f] + " \u2014 callers above, callees below";
		var up = s.callers.maxDepth + 1, down = s.callees.maxDepth + 1;
		sizeCanvas(up + down + 1);
		var vr = visibleRange(), mid = fh / 2 + up * fh, labels = [];
		drawTree(s.callers, -1, function (d) { return mid - (d + 1) * fh; }, vr[0], vr[1], labels);
		drawTree(s.callees, -1, function (d) { return mid + fh + d * fh; }, vr[0], vr[1], labels);
		finishPaint(labels);
	}

	function listOf(t) {
		var out = [];
		for (var i = 0; i < t.n; i++)
			out.push({ name: funcNames[t.func[i]], weight: t.w[i] * opts.factor, depth: t.depth[i] });
		return out;
	}

	// ---- table -----------------------------------------------------------
	var tableRows = null;
	function sortedFuncs() {
		functionTotals();
		var idx = [];
		for (var f = 0; f < NF; f++)
			idx.push(f);
		var key = st.sortKey, sgn = st.sortDesc ? -1 : 1;
		idx.sort(function (a, b) {
			var r;
			if (key === "name")
				r = funcNames[a] < funcNames[b] ? -1 : funcNames[a] > funcNames[b] ? 1 : 0;
			else
				r = key === "self" ? fSelf[a] - fSelf[b] : fTotal[a] - fTotal[b];
			return r !== 0 ? sgn * r : a - b;
		});
		return idx;
	}

	var TABLE_MAX = 2000;
	function fillTable() {
		tableRows = sortedFuncs();
		table.textContent = "";
		var thead = el("thead"), tr = el("tr");
		[["name", "Function"], ["self", "Self (" + opts.countName + ")"], ["selfpct", "Self %"],
		 ["total", "Total (" + opts.countName + ")"], ["totalpct", "Total %"]].forEach(function (h) {
			var key = h[0].replace("pct", "");
			var th = el("th", { "data-key": key, "class": key === "name" ? "fg-name" : "" },
				    h[1] + (st.sortKey === key && h[0] === key ? (st.sortDesc ? " \u25bc" : " \u25b2") : ""));
			tr.appendChild(th);
		});
		thead.appendChild(tr);
		table.appendChild(thead);
		var body = el("tbody"), html = [];
		var n = Math.min(tableRows.length, TABLE_MAX);
		for (var r = 0; r < n; r++) {
			var f = tableRows[r];
			html.push("<tr data-f=\"" + f + "\"><td class=\"fg-name\"></td><td>" + group(fSelf[f] * opts.factor) +
				  "</td><td>" + pct(total ? fSelf[f] * 100 / total : 0) + "</td><td>" +
				  group(fTotal[f] * opts.factor) + "</td><td>" + pct(total ? fTotal[f] * 100 / total : 0) +
				  "</td></tr>");
		}
		body.innerHTML = html.join("");
		for (r = 0; r < n; r++)
			body.rows[r].cells[0].textContent = funcNames[tableRows[r]];
		table.appendChild(body);
		if (tableRows.length > n)
			table.appendChild(el("caption", {}, "the first " + n + " of " + tableRows.length + " functions"));
	}

	table.addEventListener("click", function (e) {
		var th = e.target.closest("th");
		if (th) {
			var key = th.getAttribute("data-key");
			if (st.sortKey === key)
				st.sortDesc = !st.sortDesc;
			else {
				st.sortKey = key;
				st.sortDesc = key !== "name";
			}
			paint();
			return;
		}
		var tr = e.target.closest("tr[data-f]");
		if (tr)
			openSandwich(parseInt(tr.getAttribute("data-f"), 10));
	});

	function openSandwich(f) {
		st.func = f;
		st.view = "sandwich";
		st.sel = firstNodeOf(f);
		commit(true);
	}

	function firstNodeOf(f) {
		var best = -1;
		for (var i = 0; i < N; i++)
			if (funcOf[i] === f && (best < 0 || T.w[i] > T.w[best]))
				best = i;
		return best;
	}

	// ---- the URL fragment ------------------------------------------------
	function hashOf() {
		var p = ["v=" + st.view];
		if (st.zoom >= 0)
			p.push("z=" + st.zoom);
		if (st.pattern)
			p.push("q=" + encodeURIComponent(st.pattern));
		if (st.sel >= 0)
			p.push("s=" + st.sel);
		if (st.func >= 0)
			p.push("f=" + encodeURIComponent(funcNames[st.func]));
		return "#" + p.join("&");
	}

	function applyHash() {
		var h = location.hash.replace(/^#/, ""), v = {};
		h.split("&").forEach(function (kv) {
			var i = kv.indexOf("=");
			if (i > 0) {
				try {
					v[kv.substring(0, i)] = decodeURIComponent(kv.substring(i + 1));
				} catch (e) { /* a broken part is ignored */ }
			}
		});
		var node = function (s) { var n = parseInt(s, 10); return n >= 0 && n < N ? n : -1; };
		st.view = ["flame", "icicle", "sandwich", "table"].indexOf(v.v) >= 0 ? v.v :
			(opts.inverted ? "icicle" : "flame");
		if (st.view === "flame" || st.view === "icicle")
			lastFlameView = st.view;
		st.zoom = v.z !== undefined ? node(v.z) : -1;
		st.sel = v.s !== undefined ? node(v.s) : -1;
		var f = v.f !== undefined ? funcIndex.get(v.f) : undefined;
		st.func = f === undefined ? -1 : f;
		if ((v.q || "") !== st.pattern)
			setSearch(v.q || "");
	}

	var pushed = 0;  // zoom steps this page pushed onto the history
	// Makes the state the URL's and repaints; push: a new history entry.
	function commit(push) {
		var h = hashOf();
		if (h !== location.hash) {
			if (push) {
				pushed++;
				history.pushState({ fg: pushed }, "", h);
			} else {
				history.replaceState({ fg: pushed }, "", h);
			}
		}
		paint();
	}

	window.addEventListener("popstate", function (e) {
		pushed = e.state && e.state.fg ? e.state.fg : 0;
		applyHash();
		paint();
	});

	function zoomOut() {
		if (st.zoom < 0)
			return;
		if (pushed > 0) {
			history.back();
		} else {
			st.zoom = -1;
			commit(false);
		}
	}

	// ---- events ----------------------------------------------------------
	function hit(ev) {
		var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
		for (var d = drawn.n - 1; d >= 0; d--)
			if (y >= drawn.y[d] && y < drawn.y[d] + fh && x >= drawn.x[d] && x < drawn.x[d] + drawn.w[d])
				return d;
		return -1;
	}

	canvas.addEventListener("mousemove", function (ev) {
		var d = hit(ev);
		st.hover = d < 0 ? null : hoverOf(drawn.tree[d], drawn.node[d]);
		details.textContent = st.hover ? detailText(st.hover) : " ";
	});
	canvas.addEventListener("mouseleave", function () {
		st.hover = null;
		details.textContent = " ";
	});
	canvas.addEventListener("click", function (ev) {
		var d = hit(ev);
		if (d < 0)
			return;
		var tree = drawn.tree[d], i = drawn.node[d];
		if (tree !== T) {
			st.func = tree.func[i];
			st.sel = firstNodeOf(st.func);
			commit(true);
			return;
		}
		st.sel = i;
		st.func = funcOf[i];
		st.zoom = i === 0 ? -1 : i;
		commit(true);
	});
	btn.reset.addEventListener("click", function () {
		st.zoom = -1;
		commit(true);
	});
	btn.back.addEventListener("click", zoomOut);
	["flame", "icicle", "sandwich", "table"].forEach(function (v) {
		btn[v].addEventListener("click", function () {
			st.view = v;
			if (v === "flame" || v === "icicle")
				lastFlameView = v;
			if (v === "sandwich" && st.func < 0 && st.sel >= 0)
				st.func = funcOf[st.sel];
			commit(false);
		});
	});
	search.addEventListener("input", function () {
		setSearch(search.value);
		commit(false);
	});
	search.addEventListener("keydown", function (e) {
		if (e.key === "Enter") {
			e.preventDefault();
			gotoMatch(e.shiftKey ? -1 : 1);
		}
	});
	btn.next.addEventListener("click", function () { gotoMatch(1); });
	btn.prev.addEventListener("click", function () { gotoMatch(-1); });

	// the drawn frame of node i, -1 if not drawn
	function drawnOf(i) {
		for (var d = 0; d < drawn.n; d++)
			if (drawn.tree[d] === T && drawn.node[d] === i)
				return d;
		return -1;
	}

	// the drawn frame beside d in its row (dir -1 left, +1 right)
	function sibling(d, dir) {
		var best = -1;
		for (var k = 0; k < drawn.n; k++) {
			if (drawn.tree[k] !== T || drawn.y[k] !== drawn.y[d] || k === d)
				continue;
			var ok = dir > 0 ? drawn.x[k] > drawn.x[d] : drawn.x[k] < drawn.x[d];
			if (ok && (best < 0 || Math.abs(drawn.x[k] - drawn.x[d]) < Math.abs(drawn.x[best] - drawn.x[d])))
				best = k;
		}
		return best < 0 ? -1 : drawn.node[best];
	}

	function moveSelection(key) {
		if (st.view !== "flame" && st.view !== "icicle")
			return;
		var i = st.sel >= 0 ? st.sel : (st.zoom >= 0 ? st.zoom : 0), next = -1;
		var towardRoot = (key === "ArrowDown") === (st.view === "flame");
		if (st.sel < 0) {
			next = i;
		} else if (key === "ArrowLeft" || key === "ArrowRight") {
			var d = drawnOf(i);
			next = d < 0 ? -1 : sibling(d, key === "ArrowLeft" ? -1 : 1);
		} else if (towardRoot) {
			next = T.parent[i];
		} else {
			// the widest child
			for (var c = i + 1; c < T.end[i]; c = T.end[c])
				if (next < 0 || T.w[c] > T.w[next])
					next = c;
		}
		if (next < 0)
			return;
		st.sel = next;
		st.func = funcOf[next];
		if (st.zoom >= 0 && !(next >= st.zoom && next < T.end[st.zoom]))
			st.zoom = -1;
		st.hover = hoverOf(T, next);
		details.textContent = detailText(st.hover);
		commit(false);
	}

	window.addEventListener("keydown", function (e) {
		var typing = document.activeElement === search;
		if (e.key === "/" && !typing) {
			e.preventDefault();
			search.focus();
			search.select();
		} else if (e.key === "Escape") {
			if (st.pattern) {
				setSearch("");
				commit(false);
			} else if (st.zoom >= 0) {
				zoomOut();
			}
			if (typing)
				search.blur();
		} else if (!typing && e.key.indexOf("Arrow") === 0) {
			e.preventDefault();
			moveSelection(e.key);
		} else if (!typing && e.key === "Enter" && st.sel >= 0 && st.view !== "table") {
			st.zoom = st.sel === 0 ? -1 : st.sel;
			commit(true);
		} else if (!typing && e.key === "s" && st.sel >= 0) {
			openSandwich(funcOf[st.sel]);
		}
	});

	var pending = false;
	function later() {
		if (pending)
			return;
		pending = true;
		requestAnimationFrame(function () {
			pending = false;
			paint();
		});
	}
	window.addEventListener("resize", later);
	window.addEventListener("scroll", later, { passive: true });
	main.addEventListener("scroll", later, { passive: true });
	if (window.matchMedia)
		try {
			window.matchMedia("(resolution: " + (window.devicePixelRatio || 1) + "dppx)")
				.addEventListener("change", later);
		} catch (e) { /* older browsers: the resize event covers most cases */ }

	// ---- the description for tests and scripts ---------------------------
	function zoomState() {
		if (st.zoom < 0)
			return null;
		var path = [];
		for (var a = st.zoom; a >= 0; a = T.parent[a])
			path.unshift(names[T.name[a]]);
		return { name: names[T.name[st.zoom]], path: path, weight: T.w[st.zoom] * opts.factor };
	}
	var api = {};
	var getters = {
		view: function () { return st.view; },
		chart: function () { return !!opts.flamechart; },
		differential: function () { return !!opts.differential; },
		total: function () { return total * opts.factor; },
		unit: function () { return opts.countName; },
		countName: function () { return opts.countName; },
		title: function () { return opts.title; },
		zoom: zoomState,
		search: searchState,
		selected: function () {
			return st.view === "sandwich" && st.func >= 0 ? funcNames[st.func] :
				st.sel >= 0 ? names[T.name[st.sel]] : null;
		},
		hover: function () { return st.hover ? Object.assign({}, st.hover) : null; },
		paints: function () { return paints; },
		lastPaintMs: function () { return lastPaintMs; },
		nodes: function () { return N; },
		timings: function () { return Object.assign({}, timings); }
	};
	Object.keys(getters).forEach(function (k) {
		Object.defineProperty(api, k, { get: getters[k], enumerable: true });
	});
	api.frames = function () {
		var out = [];
		for (var d = 0; d < drawn.n; d++) {
			var t = drawn.tree[d], n = drawn.node[d];
			out.push({ name: t === T ? names[T.name[n]] : funcNames[t.func[n]], depth: t.depth[n],
				   x: drawn.x[d], y: drawn.y[d], w: drawn.w[d], h: fh - 1,
				   weight: t.w[n] * opts.factor, color: cssColor(drawn.color[d]),
				   part: t === T ? "graph" : t === (sandCache && sandCache.callers) ? "callers" : "callees" });
		}
		return out;
	};
	api.sandwich = function () {
		var s = st.view === "sandwich" ? sandwichTrees() : null;
		return s ? { name: funcNames[s.f], callers: listOf(s.callers), callees: listOf(s.callees) } : null;
	};
	api.table = function () {
		return sortedFuncs().map(function (f) {
			return { name: funcNames[f], self: fSelf[f] * opts.factor, total: fTotal[f] * opts.factor };
		});
	};
	Object.freeze(api);
	Object.defineProperty(window, "flamegraph", { value: api, enumerable: true });

	applyHash();
	if (st.pattern)
		search.value = st.pattern;
	history.replaceState({ fg: 0 }, "", location.hash || hashOf());
	timings.setup = performance.now() - t0;
	// a flame graph taller than its box opens on its roots
	sizeCanvas(T.maxDepth + 1);
	if (st.view === "flame")
		main.scrollTop = main.scrollHeight;
	paint();
	timings.ready = performance.now() - t0;
	timings.navigation = performance.now();
	document.documentElement.setAttribute("data-ready", "1");
})();
