// Drives the HTML viewer (flamegraph-render --format html) in headless
// Chromium and checks its state through window.flamegraph, not pixels:
// search, next/previous, zoom and back, icicle, hover, sandwich, table,
// the URL fragment, a differential graph, a flame chart, no network.
// Usage: node viewer.js DIR PROFILE_DIR
// DIR holds the pages test_viewer_browser.sh rendered:
//   graph.html  main 90 = parse 50 (read_line 30, tokenize 20 (util 20))
//                       + render 40 (draw 25 (util 25 (b 25)), layout 15); idle 10
//   rec.html    a;rec;rec;rec 6, a;x 4 (a recursive function)
//   diff.html   the differential of before/after (parse grew, render shrank)
//   chart.html  a flame chart: main;a 10, main;b 10, main;a 10 in time order
"use strict";
const { launch } = require("./chromium");

let failures = 0;
function check(what, want, got) {
	const ok = typeof want === "function" ? want(got) : JSON.stringify(want) === JSON.stringify(got);
	if (ok) {
		console.log(`ok   ${what}`);
	} else {
		failures++;
		console.log(`FAIL ${what}: expected ${typeof want === "function" ? want.toString() : JSON.stringify(want)}, got ${JSON.stringify(got)}`);
	}
}
const near = (x) => (v) => typeof v === "number" && Math.abs(v - x) < 1e-9;

const fg = (page, expr) => page.evaluate(expr);

// the page coordinates of the centre of the first drawn frame named name
async function center(page, name, part) {
	return page.evaluate(([n, p]) => {
		const f = flamegraph.frames().find((f) => f.name === n && (!p || f.part === p));
		if (!f)
			return null;
		const r = document.getElementById("fg-canvas").getBoundingClientRect();
		return { x: r.left + f.x + f.w / 2, y: r.top + f.y + f.h / 2 };
	}, [name, part]);
}

async function clickFrame(page, name, part) {
	const c = await center(page, name, part);
	if (!c)
		throw new Error(`no drawn frame ${name}`);
	await page.mouse.click(c.x, c.y);
}

async function open(page, url) {
	await page.goto(url);
	await page.waitForSelector("html[data-ready='1']", { timeout: 20000 });
}

(async () => {
	const [dir, profile] = process.argv.slice(2);
	const { ctx, page } = await launch(profile, { width: 1000, height: 500 });
	const requests = [];
	page.on("request", (r) => requests.push(r.url()));
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	const graph = "file://" + dir + "/graph.html";
	await open(page, graph);

	check("flame view by default", "flame", await fg(page, () => flamegraph.view));
	check("total", 100, await fg(page, () => flamegraph.total));
	check("unit", "samples", await fg(page, () => flamegraph.unit));
	check("--title", ["Viewer test", "Viewer test"], await fg(page, () =>
		[flamegraph.title, document.getElementById("fg-title").textContent]));
	check("canvas in device pixels", true, await fg(page, () => {
		const c = document.getElementById("fg-canvas");
		return c.width === Math.round(c.getBoundingClientRect().width * devicePixelRatio);
	}));
	check("nothing zoomed", null, await fg(page, () => flamegraph.zoom));
	check("painted once at least", (n) => n >= 1, await fg(page, () => flamegraph.paints));
	check("every frame drawn", 12, await fg(page, () => flamegraph.frames().length));
	check("root spans the width", true, await fg(page, () => {
		const f = flamegraph.frames(), all = f.find((x) => x.name === "all");
		return f.every((x) => x.x >= all.x - 0.01 && x.x + x.w <= all.x + all.w + 0.01);
	}));
	check("flame: children above their parent", true, await fg(page, () => {
		const f = flamegraph.frames();
		return f.find((x) => x.name === "parse").y < f.find((x) => x.name === "main").y;
	}));

	// hover details
	let c = await center(page, "parse");
	await page.mouse.move(c.x, c.y);
	check("hover", { name: "parse", weight: 50, share: 0.5, zoomShare: 0.5, delta: null },
	      await fg(page, () => flamegraph.hover));
	check("hover details line", "Function: parse (50 samples, 50.00%)",
	      await fg(page, () => document.getElementById("fg-details").textContent));

	// search by regex: two frames, half of the samples, highlighted
	await page.fill("#fg-search", "^(read_line|tokenize)$");
	check("search", { pattern: "^(read_line|tokenize)$", matches: 2, share: 0.5, weight: 50 },
	      await fg(page, () => flamegraph.search));
	check("matches highlighted", ["#e600e6", "#e600e6"], await fg(page, () =>
		flamegraph.frames().filter((f) => /^(read_line|tokenize)$/.test(f.name)).map((f) => f.color)));
	check("others not highlighted", false, await fg(page, () =>
		flamegraph.frames().some((f) => f.name === "parse" && f.color === "#e600e6")));
	await page.click("#fg-next");
	check("next match", "read_line", await fg(page, () => flamegraph.selected));
	await page.click("#fg-next");
	check("next match again", "tokenize", await fg(page, () => flamegraph.selected));
	await page.click("#fg-prev");
	check("previous match", "read_line", await fg(page, () => flamegraph.selected));
	await page.fill("#fg-search", "util");
	check("a name in two places counts once per frame", { matches: 2, share: 0.45 },
	      await fg(page, () => ({ matches: flamegraph.search.matches, share: flamegraph.search.share })));
	// Escape clears the search; "/" focuses it
	await page.keyboard.press("Escape");
	check("escape clears the search", null, await fg(page, () => flamegraph.search));
	await page.mouse.click(5, 5);
	await page.keyboard.press("/");
	check("/ focuses the search", "fg-search", await fg(page, () => document.activeElement.id));
	await page.keyboard.press("Escape");

	// zoom by click, and back three ways
	await clickFrame(page, "render");
	check("zoom", { name: "render", path: ["all", "main", "render"], weight: 40 },
	      await fg(page, () => flamegraph.zoom));
	check("zoomed frame fills the width", true, await fg(page, () => {
		const f = flamegraph.frames(), r = f.find((x) => x.name === "render"), all = f.find((x) => x.name === "all");
		return Math.abs(r.w - all.w) < 0.01;
	}));
	check("child scaled to 25/40", near(0.625), await fg(page, () => {
		const f = flamegraph.frames();
		return Math.round(f.find((x) => x.name === "draw").w / f.find((x) => x.name === "render").w * 1000) / 1000;
	}));
	check("sibling outside not drawn", false, await fg(page, () => flamegraph.frames().some((f) => f.name === "parse")));
	c = await center(page, "draw");
	await page.mouse.move(c.x, c.y);
	check("hover share of the zoomed frame", { share: 0.25, zoomShare: 0.625 },
	      await fg(page, () => ({ share: flamegraph.hover.share, zoomShare: flamegraph.hover.zoomShare })));
	c = await center(page, "main");
	await page.mouse.move(c.x, c.y);
	check("hover on an ancestor of the zoomed frame: no share of it", { name: "main", share: 0.9, zoomShare: null },
	      await fg(page, () => ({ name: flamegraph.hover.name, share: flamegraph.hover.share, zoomShare: flamegraph.hover.zoomShare })));
	check("its details leave that share out", false,
	      await page.evaluate(() => /of the zoomed frame/.test(document.getElementById("fg-details").textContent)));
	check("zoom in the URL", (h) => /z=\d+/.test(h), await fg(page, () => location.hash));
	await page.click("#fg-back");
	await page.waitForFunction(() => flamegraph.zoom === null);
	check("back button zooms out", null, await fg(page, () => flamegraph.zoom));
	await clickFrame(page, "render");
	check("zoomed again", "render", await fg(page, () => flamegraph.zoom && flamegraph.zoom.name));
	await page.keyboard.press("Escape");
	await page.waitForFunction(() => flamegraph.zoom === null);
	check("escape zooms out", null, await fg(page, () => flamegraph.zoom));
	await clickFrame(page, "parse");
	check("zoomed on parse", "parse", await fg(page, () => flamegraph.zoom && flamegraph.zoom.name));
	await page.evaluate(() => history.back());
	await page.waitForFunction(() => flamegraph.zoom === null);
	check("history.back() zooms out", null, await fg(page, () => flamegraph.zoom));
	await clickFrame(page, "draw");
	await page.click("#fg-reset");
	check("reset", null, await fg(page, () => flamegraph.zoom));

	// keyboard selection: arrows walk parent/child/siblings
	await clickFrame(page, "parse");
	await page.click("#fg-reset");
	check("click selects", "parse", await fg(page, () => flamegraph.selected));
	await page.keyboard.press("ArrowUp");
	check("arrow up: the widest child", "read_line", await fg(page, () => flamegraph.selected));
	await page.keyboard.press("ArrowRight");
	check("arrow right: the sibling", "tokenize", await fg(page, () => flamegraph.selected));
	await page.keyboard.press("ArrowDown");
	await page.keyboard.press("ArrowDown");
	check("arrow down twice: the grandparent", "main", await fg(page, () => flamegraph.selected));
	await page.keyboard.press("ArrowUp");
	await page.keyboard.press("Enter");
	check("enter zooms into the selection", "parse", await fg(page, () => flamegraph.zoom && flamegraph.zoom.name));
	await page.keyboard.press("s");
	check("s opens the selection's sandwich", ["sandwich", "parse"],
	      await fg(page, () => [flamegraph.view, flamegraph.sandwich() && flamegraph.sandwich().name]));
	await page.click("#fg-flame");
	await page.click("#fg-reset");

	// icicle: the root on top
	await page.click("#fg-icicle");
	check("icicle view", "icicle", await fg(page, () => flamegraph.view));
	check("icicle: children below their parent", true, await fg(page, () => {
		const f = flamegraph.frames();
		return f.find((x) => x.name === "parse").y > f.find((x) => x.name === "main").y &&
			f.find((x) => x.name === "all").y === Math.min(...f.map((x) => x.y));
	}));
	await page.click("#fg-flame");

	// the table: functions by total, sortable, a row opens its sandwich
	await page.click("#fg-table");
	check("table view", "table", await fg(page, () => flamegraph.view));
	check("table sorted by total", ["all", 100, "main", 90],
	      await fg(page, () => { const t = flamegraph.table(); return [t[0].name, t[0].total, t[1].name, t[1].total]; }));
	check("util: self 20, total 45", { name: "util", self: 20, total: 45 },
	      await fg(page, () => flamegraph.table().find((r) => r.name === "util")));
	await page.click("#fg-functions th[data-key='self']");
	check("sorted by self", ["read_line", 30, "b", 25],
	      await fg(page, () => { const t = flamegraph.table(); return [t[0].name, t[0].self, t[1].name, t[1].self]; }));
	check("shown rows follow the order", "read_line",
	      await fg(page, () => document.querySelector("#fg-functions tbody tr td").textContent));
	await page.click("#fg-functions th[data-key='self']");
	check("sorted by self, ascending", 0, await fg(page, () => flamegraph.table()[0].self));
	await page.click("#fg-functions th[data-key='name']");
	check("sorted by name", "all", await fg(page, () => flamegraph.table()[0].name));
	await page.click("#fg-functions tbody tr[data-f] >> text=util");

	// the sandwich: util's callers from both call sites, its callees
	check("row opens the sandwich", "sandwich", await fg(page, () => flamegraph.view));
	const sw = await fg(page, () => flamegraph.sandwich());
	check("sandwich function", "util", sw && sw.name);
	check("callers merged from two call sites", [
		{ name: "util", weight: 45, depth: 0 }, { name: "draw", weight: 25, depth: 1 },
		{ name: "render", weight: 25, depth: 2 }, { name: "main", weight: 25, depth: 3 },
		{ name: "all", weight: 25, depth: 4 }, { name: "tokenize", weight: 20, depth: 1 },
		{ name: "parse", weight: 20, depth: 2 }, { name: "main", weight: 20, depth: 3 },
		{ name: "all", weight: 20, depth: 4 }], sw && sw.callers);
	check("callees", [{ name: "util", weight: 45, depth: 0 }, { name: "b", weight: 25, depth: 1 }],
	      sw && sw.callees);
	check("sandwich selects the function", "util", await fg(page, () => flamegraph.selected));
	check("sandwich drawn: callers above, callees below", true, await fg(page, () => {
		const f = flamegraph.frames();
		const b = f.find((x) => x.name === "b"), d = f.find((x) => x.name === "draw");
		return b.part === "callees" && d.part === "callers" && d.y < b.y;
	}));
	await clickFrame(page, "draw", "callers");
	check("a click in the sandwich moves it", "draw", await fg(page, () => flamegraph.sandwich().name));

	// the URL fragment restores zoom, search and selection
	await page.click("#fg-flame");
	await clickFrame(page, "render");
	await clickFrame(page, "layout");
	await page.fill("#fg-search", "^l");
	const before = await fg(page, () => ({ z: flamegraph.zoom, s: flamegraph.search, sel: flamegraph.selected }));
	check("state before reload", ["layout", "^l", "layout"], [before.z && before.z.name, before.s && before.s.pattern, before.sel]);
	const hash = await fg(page, () => location.hash);
	await page.goto("about:blank");
	await open(page, graph + hash);
	check("reload restores the state", before,
	      await fg(page, () => ({ z: flamegraph.zoom, s: flamegraph.search, sel: flamegraph.selected })));
	check("search box refilled", "^l", await fg(page, () => document.getElementById("fg-search").value));

	// a recursive function counts once per stack in the table
	await open(page, "file://" + dir + "/rec.html");
	check("recursion counted once in total", { name: "rec", self: 6, total: 6 },
	      await fg(page, () => flamegraph.table().find((r) => r.name === "rec")));

	// a differential graph: red grew, blue shrank, the change in hover
	await open(page, "file://" + dir + "/diff.html");
	check("differential", true, await fg(page, () => flamegraph.differential));
	const col = await fg(page, () => {
		const o = {};
		for (const f of flamegraph.frames())
			o[f.name] = f.color;
		return o;
	});
	check("grown frame red", (v) => /^#ff([0-9a-f]{2})\1$/.test(v) && v !== "#ffffff", col.read_line);
	check("shrunk frame blue", (v) => /^#([0-9a-f]{2})\1ff$/.test(v) && v !== "#ffffff", col.layout);
	c = await center(page, "read_line");
	await page.mouse.move(c.x, c.y);
	check("hover: the change", 20, await fg(page, () => flamegraph.hover.delta));
	check("hover text: the change", (t) => /; \+\d+\.\d\d%\)$/.test(t),
	      await fg(page, () => document.getElementById("fg-details").textContent));

	// a flame chart: stacks in time order, not merged
	await open(page, "file://" + dir + "/chart.html");
	check("flame chart", true, await fg(page, () => flamegraph.chart));
	check("chart keeps time order", ["a", "b", "a"], await fg(page, () =>
		flamegraph.frames().filter((f) => f.depth === 2).sort((p, q) => p.x - q.x).map((f) => f.name)));

	// a resize repaints at the new width
	const paints = await fg(page, () => flamegraph.paints);
	await page.setViewportSize({ width: 700, height: 500 });
	await page.waitForFunction((p) => flamegraph.paints > p, paints);
	check("resize repaints narrower", (w) => w < 700, await fg(page, () => flamegraph.frames()[0].w));

	check("no page errors", "", errors.join("; "));
	const files = new Set(["graph.html", "rec.html", "diff.html", "chart.html"].map((f) => "file://" + dir + "/" + f));
	check("no request but the pages themselves", [], requests.filter((u) =>
		!files.has(u.replace(/#.*$/, "")) && u !== "about:blank"));
	await ctx.close();
	process.exit(failures ? 1 : 0);
})().catch((e) => {
	console.log("FAIL " + (e && e.stack ? e.stack : e));
	process.exit(1);
});
