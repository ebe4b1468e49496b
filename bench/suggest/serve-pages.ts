// What bench:suggest and bench:suggest-worst share: pages served on loopback and a host that suggests for them.
import { startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { benchHostConfig } from "../bench-host.js";

/**
 * Serves each page at /<slug>/page.html as saved (any other path, a next page, is 404, as it is for a
 * saved copy) and starts an in-process host on the memory adapters whose owner may preview without limit.
 */
export const servePagesAndHost = async (pages: ReadonlyArray<{ slug: string; html: string | Buffer }>) => {
  const bySlug = new Map(pages.map((p) => [p.slug, p]));
  const site = createServer((req, res) => {
    const page = bySlug.get((req.url ?? "").split("/")[1] ?? "");
    if (page && req.url === `/${page.slug}/page.html`) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page.html);
    } else res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const host = await startHost({
    config: { ...benchHostConfig, ownerLimits: { ...benchHostConfig.ownerLimits, maxPreviewsPerMinute: 1_000_000 } },
    overrides: { store: MemoryStoreLive },
  });
  const key = await host.createKey("bench-suggest", 10);
  return {
    host,
    key,
    pageUrl: (slug: string) => `${siteUrl}/${slug}/page.html`,
    close: async () => {
      await host.close();
      site.close();
    },
  };
};
