// Takes the README's picture of a graph: opens a rendered flame graph in
// headless Chromium (Debian's, over the DevTools protocol), points at one
// frame so the details line is filled in, and saves a PNG.
// Usage: node picture.js GRAPH.svg PICTURE.png PROFILE_DIR [FRAME]
"use strict";
const { launch } = require("./chromium");

(async () => {
	const [svg, picture, profile, frame] = process.argv.slice(2);
	const { ctx, page } = await launch(profile, { width: 1200, height: 600 });
	await page.goto("file://" + svg);
	await page.waitForFunction(() => typeof fg !== "undefined" && fg.nodes.length > 0);
	if (frame) {
		// the widest frame of that name, so the pointer lands on a visible one
		const at = await page.evaluate((n) => {
			let best = null;
			for (const g of document.getElementById("frames").children) {
				if (!g.querySelector("title").textContent.startsWith(n + " (")) continue;
				const b = g.querySelector("rect").getBoundingClientRect();
				if (!best || b.width > best.width) best = b;
			}
			return best && { x: best.x + best.width / 2, y: best.y + best.height / 2 };
		}, frame);
		if (!at) {
			console.error(`picture.js: no frame named ${frame} in ${svg}`);
			await ctx.close();
			process.exit(1);
		}
		await page.mouse.move(at.x, at.y);
	}
	// the graph's own height, so the picture has no empty band below it
	const height = await page.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
	await page.setViewportSize({ width: 1200, height: Math.min(Math.max(height, 200), 1200) });
	await page.screenshot({ path: picture });
	await ctx.close();
})().catch((e) => {
	console.error(`picture.js: ${e.message}`);
	process.exit(1);
});
