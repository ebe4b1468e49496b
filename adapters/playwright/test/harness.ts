import { type FetchedPage, type FetchRequest, ReadFailed } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { makePlaywrightFetcher, type PlaywrightFetcher, type PlaywrightFetcherConfig } from "../src/index.js";
import { resolveConfig } from "../src/config.js";

export const browserPath = process.env.GLEANER_BROWSER_PATH || "/usr/bin/chromium";

/**
 * Whether the browser tests can run. Locally a missing Chromium prints why and the tests do not run;
 * in CI (CI=true) it is an error, so a broken install can never pass as green.
 */
export const chromiumAvailable = (): boolean => {
  if (existsSync(browserPath)) return true;
  const why = `Chromium not found at ${browserPath} (apt-get install chromium, or set GLEANER_BROWSER_PATH)`;
  if (process.env.CI === "true") throw new Error(`${why}: the browser tests must run in CI.`);
  console.log(`  @gleaner/playwright tests did not run: ${why}.`);
  return false;
};

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Site {
  readonly url: string;
  readonly requests: string[];
  readonly close: () => Promise<void>;
}

/** A real HTTP server on a loopback address, recording every request path. */
export const startSite = async (handler: Handler, host = "127.0.0.1"): Promise<Site> => {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export const html = (res: ServerResponse, body: string, status = 200, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers });
  res.end(body);
};

export const makeFetcher = (config: PlaywrightFetcherConfig = {}): PlaywrightFetcher =>
  makePlaywrightFetcher(
    resolveConfig({
      browserPath,
      allowPrivateTargets: "127.0.0.1/32",
      readTimeoutMs: 15_000,
      quietMs: 200,
      retry: { maxAttempts: 1 },
      ...config,
    }),
  );

export const browserRequest = (url: string, extra: Partial<FetchRequest> = {}): FetchRequest => ({
  url,
  render: "browser",
  proxy: "never",
  ignoreRobots: false,
  ...extra,
});

export const read = (
  fetcher: PlaywrightFetcher,
  request: FetchRequest,
): Promise<Either.Either<FetchedPage, ReadFailed>> => Effect.runPromise(Effect.either(fetcher.service.read(request)));

export const failureOf = (result: Either.Either<FetchedPage, ReadFailed>): ReadFailed => {
  if (Either.isRight(result)) throw new Error(`expected a failed read, got a page from ${result.right.finalUrl}`);
  if (!(result.left instanceof ReadFailed)) throw result.left;
  return result.left;
};

export const pageOf = (result: Either.Either<FetchedPage, ReadFailed>): FetchedPage => {
  if (Either.isLeft(result))
    throw new Error(`expected a page, got ${result.left.failure.reason}: ${result.left.message}`);
  return result.right;
};
