import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import { suggestCandidates } from "@gleaner/core";
import * as Effect from "effect/Effect";
import { worstPages } from "./pages.js";

const only = process.argv[2];
for (const page of worstPages()) {
  if (only && page.slug !== only) continue;
  const url = `http://example.test/${page.slug}`;
  let t = performance.now();
  const parsed = Effect.runSync(Effect.either(parseWithHtmlparser2(page.html, url)));
  if (parsed._tag === "Left") { console.log(`${page.slug}: ${parsed.left.message}`); continue; }
  const doc = parsed.right;
  const parseMs = performance.now() - t;
  t = performance.now();
  const outline = doc.outline();
  const outlineMs = performance.now() - t;
  t = performance.now();
  const c = suggestCandidates(outline, { pageUrl: url, baseUrl: url });
  const ms = performance.now() - t;
  doc.dispose();
  console.log(`${page.slug}: ${(page.html.length / 1e6).toFixed(1)} MB parse ${parseMs.toFixed(0)} outline ${outlineMs.toFixed(0)} suggest ${ms.toFixed(0)} ms; ${c.length} candidates: ${c.map((x) => x.source.itemSelector).join(" | ")}`);
}
