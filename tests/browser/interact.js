// Opens a rendered flame graph in headless Chromium (Debian's, over the
// DevTools protocol) and exercises it like a user: hover, click to zoom,
// Ctrl-F regex search with the matched percentage, reset.
// Usage: node interact.js GRAPH.svg SCREENSHOT.png PROFILE_DIR
// The graph is the one test_browser.sh renders from a known profile:
//   idle 10 | main 90 = parse 50 (read_line 30, tokenize 20)
//                     + render 40 (draw 25 (b), layout 15)
"use strict";
const { launch } = require("./chromium");

let failures = 0;
function check(what, want, got) {
	if (want === got) {
		console.log(`ok   ${what}`);
	} else {
		failures++;
		console.log(`FAIL ${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
	}
}

async function frameState(page, name) {
	return page.evaluate((n) => {
		for (const g of document.getElementById("frames").children) {
			const t = g.querySelector("title").textContent;
			if (t.startsWith(n + " (")) {
				const r = g.querySelector("rect");
				return {
					x: r.getAttribute("x"), width: r.getAttribute("width"),
					hidden: g.classList.contains("hide"), parent: g.classList.contains("parent"),
					fill: r.getAttribute("fill"), label: g.querySelector("text").textContent,
				};
			}
		}
		return null;
	}, name);
}

async function center(page, name) {
	return page.evaluate((n) => {
		for (const g of document.getElementById("frames").children) {
			if (g.querySelector("title").textContent.startsWith(n + " (")) {
				const b = g.querySelector("rect").getBoundingClientRect();
				return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
			}
		}
		return null;
	}, name);
}

async function text(page, id) {
	return page.evaluate((i) => {
		const e = document.getElementById(i);
		return { text: e.textContent, hidden: e.classList.contains("hide") };
	}, id);
}

(async () => {
	const [svg, shot, profile] = process.argv.slice(2);
	const { ctx, page } = await launch(profile, { width: 1200, height: 400 });
	const requests = [];
	page.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + svg);
	await page.waitForFunction(() => typeof fg !== "undefined" && fg.nodes.length > 0);

	// hover: the details line names the frame
	let c = await center(page, "parse");
	await page.mouse.move(c.x, c.y);
	check("hover details", "Function: parse (50 samples, 50.00%)", (await text(page, "details")).text);

	// click to zoom on "render" (samples 60..100)
	c = await center(page, "render");
	await page.mouse.click(c.x, c.y);
	let s = await frameState(page, "render");
	check("zoomed frame fills the width", "0.0000%/100.0000%", s.x + "/" + s.width);
	s = await frameState(page, "draw");
	check("child scaled (25 of 40 samples)", "0.0000%/62.5000%", s.x + "/" + s.width);
	check("child label shown", "draw", s.label);
	check("sibling outside hidden", true, (await frameState(page, "parse")).hidden);
	check("unrelated root hidden", true, (await frameState(page, "idle")).hidden);
	check("ancestor dimmed", true, (await frameState(page, "main")).parent);
	check("reset button shown", false, (await text(page, "unzoom")).hidden);

	// Ctrl-F: regex search, percentage of the zoomed frame
	page.once("dialog", (d) => d.accept("^dr.w$"));
	await page.keyboard.press("Control+F");
	await page.waitForFunction(() => fg.term !== null);
	check("matched share of the zoomed frame", "Matched: 62.5%", (await text(page, "matched")).text);
	check("match highlighted", "rgb(230,0,230)", (await frameState(page, "draw")).fill);
	await page.screenshot({ path: shot });

	// reset zoom: everything back in place; the percentage is of the whole
	c = await center(page, "unzoom").catch(() => null);
	await page.click("#unzoom");
	s = await frameState(page, "render");
	check("reset zoom restores x/width", "60.0000%/40.0000%", s.x + "/" + s.width);
	check("reset zoom shows all", false, (await frameState(page, "parse")).hidden);
	check("reset button hidden", true, (await text(page, "unzoom")).hidden);
	check("matched share of everything", "Matched: 25.0%", (await text(page, "matched")).text);

	// a second search: nested matches count once (main contains parse)
	await page.click("#search"); // resets the search
	page.once("dialog", (d) => d.accept("^(main|parse)$"));
	await page.click("#search");
	await page.waitForFunction(() => fg.term !== null);
	check("nested matches counted once", "Matched: 90.0%", (await text(page, "matched")).text);
	await page.keyboard.press("Escape");
	check("escape resets the search", true, (await text(page, "matched")).hidden);

	check("no page errors", "", errors.join("; "));
	check("no network requests", "", requests.join(" "));
	await ctx.close();
	process.exit(failures ? 1 : 0);
})().catch((e) => {
	console.log("FAIL " + (e && e.stack ? e.stack : e));
	process.exit(1);
});
