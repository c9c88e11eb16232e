// Debian's headless Chromium, driven over the DevTools protocol by
// playwright-core: the one way the browser scripts here start it.
"use strict";
const { chromium } = require("playwright-core");

// A browser with its own profile folder and a page of the given size.
exports.launch = async (profile, viewport) => {
	const ctx = await chromium.launchPersistentContext(profile, {
		executablePath: "/usr/bin/chromium",
		headless: true,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		       "--disable-component-update", "--disable-sync", "--no-first-run"],
		viewport,
	});
	return { ctx, page: ctx.pages()[0] || (await ctx.newPage()) };
};
