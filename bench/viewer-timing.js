// Times flame graphs in headless Chromium (Debian's, through
// tests/browser/chromium.js and its playwright-core): for each file, RUNS
// fresh page loads, each timed from the navigation's start to the page
// being usable, then one click on a frame near the middle, timed to
// the end of the first frame that shows it. All times are performance.now() readings
// taken inside the page.
//
// Usage: node viewer-timing.js RUNS PROFILE_DIR FILE...
// Prints one JSON line per file: {file, kind, frames, clicked,
// ready: [ms...], click: [ms...]}.
//        node viewer-timing.js table < LINES
// Prints those lines as one table, a row per input (files named
// STACKS.svg, STACKS.html, STACKS.inferno.svg), medians of the runs.
//
// Ready: an SVG when its load event has fired and two animation frames
// have begun after it (the second begins once the first, which shows the
// loaded document, was painted); the HTML viewer when it has set
// data-ready="1" on <html> and the same two frames have begun after that.
// Click: from the click event's dispatch to the end of the first frame
// that shows the change, by the same rule for both: the SVG's zoom runs
// inside the click handler, and the browser lays it out and paints it in
// the next frame; the viewer draws in an animation frame callback
// (window.flamegraph.paints tells it did).
"use strict";
const path = require("path");
const { launch } = require(path.join(__dirname, "..", "tests", "browser", "chromium"));

// Runs in the page before its own scripts (when there is no <html> or
// <svg> element yet): notes when it is usable.
function readyProbe() {
	const twoFrames = (then) => requestAnimationFrame(() => requestAnimationFrame(then));
	window.__bench = { ready: null };
	const done = () => twoFrames(() => { window.__bench.ready = performance.now(); });
	if (location.pathname.endsWith(".svg")) {
		window.addEventListener("load", done);
		return;
	}
	// the document's subtree: <html> is not there yet
	new MutationObserver((_, obs) => {
		const html = document.documentElement;
		if (html && html.getAttribute("data-ready") === "1") {
			obs.disconnect();
			done();
		}
	}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-ready"] });
}

// The frame to click, in viewport coordinates: of the frames at depth 2
// (3, then 1, when there are none) at least half as wide as the widest
// there, the one nearest the middle of the root frame. Both formats draw
// the same frames to the same scale, so they pick the same one.
function pickFrame() {
	const svg = document.documentElement.localName === "svg";
	let frames = [];
	let left = 0, top = 0;
	if (svg) {
		const rows = new Map();
		for (const g of document.getElementById("frames").children) {
			const r = g.querySelector("rect");
			const b = r.getBoundingClientRect();
			const y = Number(r.getAttribute("y"));
			if (!rows.has(y))
				rows.set(y, []);
			rows.get(y).push({ name: g.querySelector("title").textContent.replace(/ \([^(]*\)$/, ""),
					   x: b.x, y: b.y, w: b.width, h: b.height });
		}
		const ys = [...rows.keys()].sort((a, b) => b - a); // the root's row is lowest
		if (typeof fg_inverted !== "undefined" && fg_inverted)
			ys.reverse();
		for (let d = 0; d < ys.length; d++)
			for (const f of rows.get(ys[d]))
				frames.push(Object.assign(f, { depth: d }));
	} else {
		const c = document.querySelector("canvas").getBoundingClientRect();
		left = c.x;
		top = c.y;
		frames = window.flamegraph.frames();
	}
	const root = frames.find((f) => f.depth === 0);
	if (!root)
		return null;
	for (const depth of [2, 3, 1]) {
		const row = frames.filter((f) => f.depth === depth && f.w >= 2);
		const widest = Math.max(0, ...row.map((f) => f.w));
		let best = null;
		for (const f of row) {
			if (f.w < widest / 2)
				continue;
			const off = Math.abs((f.x + f.w / 2 - root.x) / root.w - 0.5);
			if (!best || off < best.off)
				best = { off, name: f.name, x: left + f.x + f.w / 2, y: top + f.y + f.h / 2 };
		}
		if (best)
			return best;
	}
	return null;
}

// Arms the click timer: resolves with the milliseconds from the click's
// dispatch to the end of the first frame that shows the change. A task
// posted from an animation frame callback runs once that frame's callbacks
// (the viewer's drawing among them), layout and paint are done.
function armClick() {
	const svg = document.documentElement.localName === "svg";
	const before = svg ? 0 : window.flamegraph.paints;
	window.__bench.click = null;
	window.addEventListener("click", () => {
		const t0 = performance.now();
		const changed = () => svg || window.flamegraph.paints > before;
		const frame = () => requestAnimationFrame(() => setTimeout(() => {
			if (!changed())
				return frame();
			window.__bench.click = performance.now() - t0;
		}, 0));
		frame();
	}, { capture: true, once: true });
}

function countFrames() {
	if (document.documentElement.localName === "svg")
		return document.getElementById("frames").children.length;
	return window.flamegraph.nodes;
}

// Waits in the page until window.__bench[key] is set, and returns it, or
// null after limit ms (not page.waitForFunction: the viewer's
// Content-Security-Policy forbids the eval it polls with).
async function until(page, key, limit) {
	return page.evaluate(([k, ms]) => new Promise((resolve) => {
		const end = performance.now() + ms;
		const tick = () => {
			const v = window.__bench ? window.__bench[k] : null;
			if (v !== null && v !== undefined)
				return resolve(v);
			if (performance.now() > end)
				return resolve(null);
			setTimeout(tick, 20);
		};
		tick();
	}), [key, limit]);
}

async function quiet(page) {
	await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

async function timeFile(ctx, file, runs) {
	const out = { file: path.basename(file), kind: file.endsWith(".html") ? "html" : "svg",
		      frames: null, clicked: null, ready: [], click: [] };
	for (let i = 0; i < runs; i++) {
		const page = await ctx.newPage();
		try {
			await page.goto("file://" + path.resolve(file), { waitUntil: "commit", timeout: 600000 });
			const ready = await until(page, "ready", 600000);
			if (ready === null)
				throw new Error(`${file}: not usable after 10 minutes`);
			out.ready.push(ready);
			if (out.frames === null)
				out.frames = await page.evaluate(countFrames);
			const target = await page.evaluate(pickFrame);
			if (!target)
				continue;
			out.clicked = target.name;
			await quiet(page);
			await page.evaluate(armClick);
			await page.mouse.click(target.x, target.y);
			const click = await until(page, "click", 120000);
			if (click === null)
				throw new Error(`${file}: a click on ${target.name} changed nothing in 2 minutes`);
			out.click.push(click);
		} finally {
			await page.close();
		}
	}
	return out;
}

function median(v) {
	if (!v || !v.length)
		return null;
	const s = [...v].sort((a, b) => a - b), m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function printTable(lines, sizes) {
	const rows = new Map();
	for (const l of lines) {
		const m = /^(\d+)\.(svg|html|inferno\.svg)$/.exec(l.file);
		if (!m)
			continue;
		if (!rows.has(m[1]))
			rows.set(m[1], {});
		rows.get(m[1])[m[2] === "inferno.svg" ? "inferno" : m[2]] = l;
	}
	const cols = ["stacks", "frames", "svg_MB", "html_MB", "inferno_MB", "svg_ready_ms",
		      "html_ready_ms", "inferno_ready_ms", "svg_click_ms", "html_click_ms"];
	const ms = (x) => (x === null || x === undefined ? "-" : x.toFixed(0));
	const mb = (f) => (sizes[f] === undefined ? "-" : (sizes[f] / 1e6).toFixed(2));
	const out = [cols];
	for (const [n, r] of [...rows].sort((a, b) => a[0] - b[0])) {
		const get = (k, what) => (r[k] ? median(r[k][what]) : null);
		out.push([n, String((r.svg || r.html || {}).frames ?? "-"), mb(n + ".svg"), mb(n + ".html"),
			  mb(n + ".inferno.svg"), ms(get("svg", "ready")), ms(get("html", "ready")),
			  ms(get("inferno", "ready")), ms(get("svg", "click")), ms(get("html", "click"))]);
	}
	const w = cols.map((_, i) => Math.max(...out.map((r) => r[i].length)));
	for (const r of out)
		console.log(r.map((c, i) => c.padStart(w[i])).join("  "));
	console.log("frames clicked:");
	for (const [n, r] of [...rows].sort((a, b) => a[0] - b[0]))
		console.log(`  ${n}: ` + ["svg", "html"].filter((k) => r[k])
			.map((k) => `${k} ${r[k].clicked === null ? "none" : r[k].clicked}`).join(", "));
}

(async () => {
	if (process.argv[2] === "table") {
		// stdin: the JSON lines, then a line "sizes" and "FILE BYTES" lines
		const text = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
		const cut = text.indexOf("sizes");
		const sizes = {};
		for (const l of text.slice(cut + 1)) {
			const [f, b] = l.split(" ");
			sizes[f] = Number(b);
		}
		printTable(text.slice(0, cut).map((l) => JSON.parse(l)), sizes);
		return;
	}
	const [runs, profile, ...files] = process.argv.slice(2);
	const { ctx, page } = await launch(profile, { width: 1200, height: 1000 });
	let failed = false;
	try {
		await page.close();
		await ctx.addInitScript(readyProbe);
		for (const f of files) {
			process.stderr.write(`  ${path.basename(f)}...\n`);
			console.log(JSON.stringify(await timeFile(ctx, f, Number(runs))));
		}
	} catch (e) {
		console.error(`viewer-timing: ${e.message || e}`);
		failed = true;
	} finally {
		await ctx.close();
	}
	process.exit(failed ? 1 : 0);
})();
