import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import * as Effect from "effect/Effect";
import { pageTree } from "../../core/dist/suggest/page-tree.js";
import { recordGroups } from "../../core/dist/suggest/records.js";
import { findPagination } from "../../core/dist/suggest/pagination.js";
import { suggestCandidates } from "../../core/dist/suggest/suggest.js";
import { worstPages } from "./pages.js";

const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const only = process.argv[2];
for (const page of worstPages()) {
  if (only && page.slug !== only) continue;
  const url = `http://example.test/${page.slug}`;
  let t = cpu();
  const parsed = Effect.runSync(Effect.either(parseWithHtmlparser2(page.html, url)));
  if (parsed._tag === "Left") { console.log(`${page.slug}: ${parsed.left.message}`); continue; }
  const doc = parsed.right;
  const out: string[] = [];
  const lap = (name: string) => { const n = cpu(); out.push(`${name} ${(n - t).toFixed(0)}`); t = n; };
  lap("parse");
  const outline = doc.outline(); lap("outline");
  const tree = pageTree(outline); lap("tree");
  findPagination(tree, url); lap("pagination");
  recordGroups(tree); lap("groups");
  const c = suggestCandidates(outline, { pageUrl: url, baseUrl: url }); lap("suggest(all)");
  doc.dispose();
  console.log(`${page.slug}: cpu ms ${out.join(", ")}; ${c.map((x) => x.source.itemSelector).join(" | ")}`);
}
