import { startBooksSite } from "@gleaner/conformance";
import { chromium } from "playwright-core";
import { makeFetcher, browserRequest, read, pageOf } from "./test/harness.ts";
const site = await startBooksSite({ render: "script" });
const f = makeFetcher();
for (let i = 1; i <= 6; i++) {
  const t = performance.now();
  pageOf(await read(f, browserRequest(site.pageUrl(i), { waitForSelector: "article.product_pod" })));
  console.log("read", (performance.now() - t) | 0);
}
await f.close();
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--blink-settings=imagesEnabled=false"],
});
for (let i = 1; i <= 4; i++) {
  const t = performance.now();
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const t1 = performance.now();
  await page.goto(site.pageUrl(i), { waitUntil: "load" });
  const t2 = performance.now();
  await page.waitForSelector("article.product_pod", { state: "attached" });
  const t3 = performance.now();
  await page.content();
  const t4 = performance.now();
  console.log("raw: setup", (t1 - t) | 0, "goto", (t2 - t1) | 0, "sel", (t3 - t2) | 0, "content", (t4 - t3) | 0);
  void ctx.close();
}
await browser.close();
await site.close();
console.log(site.requests.slice(0, 12).map((r) => r.path));
