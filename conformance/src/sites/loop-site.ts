import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A two-page listing on loopback whose second page's next link comes back to a page already read, in
 * each of the ways pagination loops on real sites (issue 33). Under `/{kind}/`: page 1 links to page 2;
 * page 2 links to
 * - `fragment`: itself with a fragment (`/fragment/p/2#again`);
 * - `top`: page 1 with a fragment (`/top/p/1#top`);
 * - `alias`: `/alias/alias/1`, which redirects (302) to page 1;
 * - `query`: itself with a query (`/query/p/2?same=1`), which serves page 2 again;
 * - `case`: page 1 under another spelling of the same address (`HTTP://127.0.0.1:port/case/./p/1`).
 * Each page holds three items keyed `{page}-{n}`. `requests` counts the requests per path and query.
 */
export const loopKinds = ["fragment", "top", "alias", "query", "case"] as const;
export type LoopKind = (typeof loopKinds)[number];

export interface LoopSite {
  readonly url: string;
  readonly requests: Map<string, number>;
  readonly close: () => Promise<void>;
}

export const startLoopSite = async (): Promise<LoopSite> => {
  const requests = new Map<string, number>();
  let origin = "";
  const server = createServer((request, response) => {
    const path = request.url ?? "/";
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const match = /^\/(\w+)\/(p|alias)\/(\d)(\?.*)?$/.exec(path);
    if (!match) return void response.writeHead(404).end();
    const [, kind, what, number] = match;
    if (what === "alias") return void response.writeHead(302, { location: `/${kind}/p/${number}` }).end();
    const page = Number(number);
    const next =
      page === 1
        ? `/${kind}/p/2`
        : {
            fragment: `/${kind}/p/2#again`,
            top: `/${kind}/p/1#top`,
            alias: `/${kind}/alias/1`,
            query: `/${kind}/p/2?same=1`,
            case: `${origin.replace("http", "HTTP")}/${kind}/./p/1`,
          }[kind ?? ""];
    const items = [1, 2, 3].map((n) => `<li class="item"><b>${page}-${n}</b></li>`).join("");
    response.writeHead(200, { "content-type": "text/html" });
    response.end(`<html><body><ul>${items}</ul>${next ? `<a class="next" href="${next}">next</a>` : ""}</body></html>`);
  }).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
