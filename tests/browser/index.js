// Opens a suite's index.html from disk in headless Chromium and uses it
// like a reader: sorts by a numeric column both ways, follows every link
// to a file that exists, opens one graph. Anything the page asks for
// outside its folder (a network request, a file elsewhere) fails.
// Usage: node index.js DIR PROFILE_DIR
// DIR is the folder tests/unit/helpers/suite-index-sample.c writes.
"use strict";
const fs = require("fs");
const path = require("path");
const { pathToFileURL, fileURLToPath } = require("url");
const { launch } = require("./chromium");

let failures = 0;
function check(what, want, got) {
	const w = JSON.stringify(want), g = JSON.stringify(got);
	if (w === g) {
		console.log(`ok   ${what}`);
	} else {
		failures++;
		console.log(`FAIL ${what}: expected ${w}, got ${g}`);
	}
}

// The text of one column, row by row, as the table shows it now.
function column(page, index) {
	return page.$$eval(`#tests tbody tr td:nth-child(${index})`,
		(cells) => cells.map((c) => c.textContent));
}

async function clickHeader(page, title) {
	await page.locator("#tests thead th button", { hasText: title }).click();
}

(async () => {
	const [dir, profile] = process.argv.slice(2);
	const inside = pathToFileURL(path.resolve(dir)).href + "/";
	const { ctx, page } = await launch(profile, { width: 1200, height: 600 });
	const outside = [];
	page.on("request", (r) => { if (!r.url().startsWith(inside)) outside.push(r.url()); });
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));

	await page.goto(inside + "index.html");
	check("title", "sample <project>: test profiles", await page.title());
	check("default order", ["parse_small", "slow #2 <big>", "tiny", "needs_lib", "segv"],
		await column(page, 1));

	// numbers sort as numbers: 10 after 2.5, both ways
	await clickHeader(page, "Wall (s)");
	check("wall ascending", ["0.00", "0.30", "1.00", "2.50", "10.00"], await column(page, 4));
	check("names follow their rows", ["needs_lib", "tiny", "segv", "parse_small", "slow #2 <big>"],
		await column(page, 1));
	check("header marks the order", "ascending",
		await page.getAttribute("#tests thead th:nth-child(4)", "aria-sort"));
	await clickHeader(page, "Wall (s)");
	check("wall descending", ["10.00", "2.50", "1.00", "0.30", "0.00"], await column(page, 4));
	await clickHeader(page, "Samples");
	check("samples ascending", ["0", "0", "750", "2250", "9500"], await column(page, 6));
	// the worst endings last
	await clickHeader(page, "Status");
	check("status by severity", ["passed", "too short to sample", "failed", "crashed", "not built"],
		await column(page, 2));

	// every link leads to a file of the folder
	const links = await page.$$eval("a[href]", (as) => as.map((a) => a.href));
	check("links: three graphs and the merged one", 4, links.length);
	for (const href of links) {
		const inFolder = href.startsWith(inside);
		check(`link inside the folder: ${href}`, true, inFolder);
		if (inFolder)
			check(`link to an existing file: ${href}`, true, fs.existsSync(fileURLToPath(href)));
	}

	// a graph opens from its row
	await Promise.all([
		page.waitForURL(/\.svg$/),
		page.locator("#tests a", { hasText: "slow #2 <big>" }).click(),
	]);
	check("the graph's file", path.join(path.resolve(dir), "slow #2 <big>.svg"),
		fileURLToPath(page.url()));
	check("the graph loaded", "graph of slow #2 <big>", await page.textContent("#graph-of"));

	check("requests outside the folder", [], outside);
	check("script errors", [], errors);
	await ctx.close();
	process.exit(failures ? 1 : 0);
})().catch((e) => {
	console.log(`FAIL ${e.stack || e}`);
	process.exit(1);
});
