import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as Layer from "effect/Layer";
import { type FetchedPage, Fetcher, type FetcherService, type FetchRequest, ReadFailed } from "../ports/fetcher.js";
import type { ReadFailure, ReadFailureReason } from "../schema/run.js";
import type { RenderMode } from "../schema/source.js";
import { originOnly } from "./origin.js";
import { planRoutes, type ProxyEndpoint, type Route } from "./proxy.js";
import { proxyRetryReasons } from "./refusals.js";
import { type RetryPolicy, retryAfterFirstFailure, retrySchedule } from "./retry.js";
import { InvalidReadingConfig } from "./target-policy.js";

/** One attempt at a page on one route, as every fetcher adapter reports it. Attempts never throw. */
export type AttemptOutcome =
  | { readonly ok: true; readonly page: Omit<FetchedPage, "attempts" | "durationMs"> }
  | {
      readonly ok: false;
      readonly failure: ReadFailure;
      readonly message: string;
      readonly retryAfterMs: number | null;
    };

/** A failed attempt; `finalUrl` keeps the origin only. */
export const failedAttempt = (
  reason: ReadFailureReason,
  status: number | null,
  url: string | null,
  message: string,
  retryAfterMs: number | null = null,
): AttemptOutcome => ({ ok: false, failure: { reason, status, finalUrl: originOnly(url) }, message, retryAfterMs });

/** After a failure on one route, is the next route (a proxy) worth trying? */
export const shouldSwitchRoute = (failure: ReadFailure, route: Route): boolean =>
  proxyRetryReasons.has(failure.reason) ||
  (route.kind === "proxy" && (failure.reason === "network" || failure.reason === "timeout"));

/** Proxy URLs carry credentials; no message that leaves a fetcher may contain them. */
export const scrubProxyCredentials =
  (proxies: ReadonlyArray<ProxyEndpoint>) =>
  (message: string): string =>
    proxies.reduce((text, proxy) => {
      const url = new URL(proxy.url);
      let out = text.split(proxy.url).join(proxy.redacted);
      if (url.password) out = out.split(decodeURIComponent(url.password)).join("***").split(url.password).join("***");
      return out;
    }, message);

export interface AttemptPlan {
  /** The render mode this fetcher serves, and who serves the other one (for the refusal message). */
  readonly render: RenderMode;
  readonly otherRender: string;
  readonly proxies: ReadonlyArray<ProxyEndpoint>;
  readonly retry: RetryPolicy;
  /** Rotates proxies between reads. */
  readonly nextTurn: () => number;
  readonly attempt: (request: FetchRequest, route: Route, signal: AbortSignal) => Promise<AttemptOutcome>;
}

/**
 * A read as every fetcher performs it: the routes the proxy mode plans (direct, through a proxy, or
 * direct then a proxy when blocked), bounded retries with backoff for transient failures on each
 * route, and one classified ReadFailed with credentials scrubbed when nothing yields a page.
 */
export const readWithAttempts = (plan: AttemptPlan) => {
  const scrub = scrubProxyCredentials(plan.proxies);
  // On the last route no failure switches route: its schedule is built once, not once per page read.
  const lastRouteSchedule = retrySchedule(plan.retry);
  return (request: FetchRequest): Effect.Effect<FetchedPage, ReadFailed> =>
    Effect.gen(function* () {
      const startedAt = yield* Clock.currentTimeMillis;
      const refuse = (reason: ReadFailureReason, message: string) =>
        new ReadFailed({ failure: { reason, status: null, finalUrl: originOnly(request.url) }, message, attempts: 0 });
      if (request.render !== plan.render) {
        return yield* refuse("unknown", `render "${request.render}" needs ${plan.otherRender}`);
      }
      const routes = planRoutes(request.proxy, plan.proxies, plan.nextTurn());
      if (!routes.ok) return yield* refuse("network", routes.message);
      let attempts = 0;
      let last: Extract<AttemptOutcome, { ok: false }> | undefined;
      for (const [index, route] of routes.routes.entries()) {
        const hasNextRoute = index + 1 < routes.routes.length;
        const attemptOnRoute = Effect.promise((signal) => {
          attempts++;
          return plan.attempt(request, route, signal);
        }).pipe(Effect.flatMap((outcome) => (outcome.ok ? Effect.succeed(outcome.page) : Effect.fail(outcome))));
        // A blocked direct read goes straight to the proxy: retrying it directly only burns time.
        const switchesRoute = (failure: ReadFailure) => hasNextRoute && shouldSwitchRoute(failure, route);
        const schedule = hasNextRoute ? retrySchedule(plan.retry, switchesRoute) : lastRouteSchedule;
        const result = yield* Effect.either(retryAfterFirstFailure(attemptOnRoute, schedule));
        if (Either.isRight(result)) {
          const durationMs = (yield* Clock.currentTimeMillis) - startedAt;
          return { ...result.right, attempts, durationMs };
        }
        last = result.left;
        if (!switchesRoute(last.failure)) break;
      }
      const failure = last!;
      return yield* new ReadFailed({ failure: failure.failure, message: scrub(failure.message), attempts });
    });
};

/**
 * A fetcher adapter as a Layer: its configuration resolved (a bad allow-list or proxy entry fails
 * the Layer with InvalidReadingConfig naming the setting), the fetcher made, and closed when the
 * Layer's scope ends.
 */
export const scopedFetcher = <C>(
  resolve: () => C,
  make: (config: C) => { readonly service: FetcherService; readonly close: () => Promise<void> },
): Layer.Layer<Fetcher, InvalidReadingConfig> =>
  Layer.scoped(
    Fetcher,
    Effect.gen(function* () {
      const resolved = yield* Effect.try({
        try: resolve,
        catch: (error) =>
          error instanceof InvalidReadingConfig
            ? error
            : new InvalidReadingConfig({ setting: "fetcher", message: String(error) }),
      });
      const made = yield* Effect.acquireRelease(
        Effect.sync(() => make(resolved)),
        (fetcher) => Effect.promise(() => fetcher.close()),
      );
      return made.service;
    }),
  );
