import {
  type AttemptOutcome,
  checkUrl,
  classifyResponse,
  detectChallenge,
  type FetchRequest,
  headersFromRecord,
  isHtmlContentType,
  originOnly,
  parseRetryAfter,
  failedAttempt,
  NoAddressError,
  type RobotsGate,
  type Route,
  resolveSafeAddress,
  UnsafeTargetError,
} from "@gleaner/core";
import type { Browser, Page, Request, Response } from "playwright-core";
import type { BrowserKeeper } from "./browser-keeper.js";
import type { ResolvedConfig } from "./config.js";
import { type GuardProxy, targetKey } from "./guard-proxy.js";
import { busyFailure, isResponsive, memoryFailure, RESPONSIVE_GRACE_MS, within } from "./render-limits.js";
import { waitForRender } from "./render-wait.js";
import type { Lease, RunSessions } from "./run-sessions.js";
import { isBrowserGone, transportFailure } from "./transport-errors.js";

export interface ReadDeps {
  readonly config: ResolvedConfig;
  readonly keeper: BrowserKeeper;
  readonly robots: RobotsGate;
  readonly sessions: RunSessions;
}

const failed = failedAttempt;

export const CRASH_MESSAGE = "the browser crashed during the read; a new one is started for the next read";

/** Every URL the main document passed through, the start URL first (Chromium follows redirects itself). */
const redirectChain = (response: Response): string[] => {
  const urls: string[] = [];
  for (let request: ReturnType<Response["request"]> | null = response.request(); request; ) {
    urls.unshift(request.url());
    request = request.redirectedFrom();
  }
  return urls;
};

/**
 * One attempt at reading a page in the browser on one route: the start URL checked against the SSRF
 * policy and robots.txt, then a fresh context whose every connection goes through a guard proxy,
 * `load`, the render wait, and the core classification of what was rendered. Never throws.
 */
export const readOnce = async (
  deps: ReadDeps,
  request: FetchRequest,
  route: Route,
  signal?: AbortSignal,
): Promise<AttemptOutcome> => {
  const { config } = deps;
  const deadline = Date.now() + config.readTimeoutMs;
  const verdict = checkUrl(request.url, config.allow);
  if (!verdict.allowed)
    return failed(
      "unsafe_target",
      null,
      request.url,
      `refused to read ${originOnly(request.url) ?? "the URL"}: ${verdict.why}`,
    );
  try {
    await resolveSafeAddress(new URL(request.url).hostname, config.allow, config.lookup);
  } catch (error) {
    if (error instanceof UnsafeTargetError) return failed("unsafe_target", null, request.url, error.message);
    const message = error instanceof NoAddressError ? error.message : transportFailure(error).message;
    return failed("network", null, request.url, message);
  }
  if (!request.ignoreRobots) {
    const refused = await deps.robots.verdict(request.url, route);
    if (refused) return refused;
  }

  let browser: Browser;
  try {
    browser = await deps.keeper.get();
  } catch (error) {
    return failed(
      "unknown",
      null,
      request.url,
      `Chromium could not be started (${config.browserPath}): ${String(error)}`,
    );
  }
  const endRead = deps.keeper.beginRead();
  const killsBefore = deps.keeper.memoryKills();
  let lease: Lease | undefined;
  let crashed = false;
  let outcome: AttemptOutcome | undefined;
  /** What a crash, a busy renderer or a dead browser means for this read, if one of them happened. */
  const limitHit = async (url: string, checkBusy: boolean): Promise<AttemptOutcome | null> => {
    if (!browser.isConnected()) return failed("unknown", null, request.url, CRASH_MESSAGE);
    if (crashed) return memoryFailure(config, url, deps.keeper.memoryKills() > killsBefore);
    if (checkBusy && lease && !(await isResponsive(lease.page))) return busyFailure(config, url);
    return null;
  };
  const onCrash = () => {
    crashed = true;
  };
  try {
    lease = await deps.sessions.lease(browser, request.runId, route);
    const { page, guard } = lease;
    // An interrupted read (host shutting down, run cancelled) closes its context: goto fails at once.
    const abandon = () => void lease?.context.close().catch(() => {});
    signal?.addEventListener("abort", abandon, { once: true });
    const navigations: string[] = [];
    const main = page.mainFrame();
    const onRequest = (r: Request) => {
      if (r.isNavigationRequest() && r.frame() === main) navigations.push(r.url());
    };
    page.on("crash", onCrash);
    page.on("request", onRequest);
    try {
      outcome = await navigateAndJudge(deps, request, route, page, guard, navigations, deadline, limitHit);
      return outcome;
    } finally {
      signal?.removeEventListener("abort", abandon);
      page.off("crash", onCrash);
      page.off("request", onRequest);
    }
  } catch (error) {
    outcome = (await limitHit(request.url, false)) ?? undefined;
    if (outcome) return outcome;
    if (isBrowserGone(error)) return failed("unknown", null, request.url, CRASH_MESSAGE);
    return failed("unknown", null, request.url, `the browser read failed: ${String(error).split("\n")[0]}`);
  } finally {
    // The result is already known: the read returns now, and the session either waits for the run's
    // next read or closes in the background. Closing also ends a renderer stuck in a script.
    const reusable = !crashed && !signal?.aborted && outcome !== undefined && reusableAfter(outcome);
    lease?.end(reusable);
    endRead();
  }
};

const withoutFragment = (url: string): string => url.split("#")[0] ?? url;

/** A session that saw a limit, a crash or a timeout may be in any state: the run's next read starts afresh. */
const reusableAfter = (outcome: AttemptOutcome): boolean =>
  outcome.ok || !["limit_exceeded", "unknown", "timeout", "cancelled"].includes(outcome.failure.reason);

/** goto, then the render wait and the judgement, all within the deadline. Never throws a limit. */
const navigateAndJudge = async (
  deps: ReadDeps,
  request: FetchRequest,
  route: Route,
  page: Page,
  guard: GuardProxy,
  navigations: string[],
  deadline: number,
  limitHit: (url: string, checkBusy: boolean) => Promise<AttemptOutcome | null>,
): Promise<AttemptOutcome> => {
  const { config } = deps;
  let response: Response | null;
  try {
    // A run's page that shows this document already would only scroll to the fragment: start afresh.
    if (withoutFragment(page.url()) === withoutFragment(request.url)) await page.goto("about:blank");
    response = await page.goto(request.url, { waitUntil: "load", timeout: Math.max(1, deadline - Date.now()) });
  } catch (error) {
    const last = navigations.at(-1) ?? request.url;
    const limit = await limitHit(last, transportFailure(error).reason === "timeout");
    if (limit) return limit;
    if (isBrowserGone(error)) return failed("unknown", null, request.url, CRASH_MESSAGE);
    const record = guard.recordFor(targetKey(new URL(last)));
    if (record) return failed(record.reason, null, last, record.message);
    const transport = transportFailure(error);
    return failed(transport.reason, null, last, transport.message);
  }
  if (!response) return failed("unknown", null, request.url, "the browser reported no response for the page");
  const finalUrl = response.url();
  // Everything after the navigation (render wait, DOM, body) is bounded by the same deadline: a page
  // whose scripts never yield would otherwise hold page.content() forever.
  const judged = await within(
    judge(deps, request, route, page, response, deadline),
    deadline - Date.now() + RESPONSIVE_GRACE_MS,
  ).catch(async (error: unknown) => {
    const limit = await limitHit(finalUrl, false);
    if (limit) return { value: limit };
    throw error;
  });
  if (judged) return judged.value;
  return (
    (await limitHit(finalUrl, true)) ??
    failed("timeout", null, finalUrl, `the page did not finish rendering within ${config.readTimeoutMs / 1000} s`)
  );
};

const judge = async (
  deps: ReadDeps,
  request: FetchRequest,
  route: Route,
  page: Page,
  response: Response,
  deadline: number,
): Promise<AttemptOutcome> => {
  const { config } = deps;
  const chain = redirectChain(response);
  const finalUrl = response.url();
  if (chain.length - 1 > config.maxRedirects) {
    return failed("limit_exceeded", response.status(), finalUrl, `more than ${config.maxRedirects} redirects`);
  }
  // Chromium follows redirects without asking, so the hops' robots.txt is checked after the fact:
  // a disallowed hop still fails the read, as it does for a static read.
  if (!request.ignoreRobots) {
    for (const hop of chain.slice(1)) {
      const refused = await deps.robots.verdict(hop, route);
      if (refused) return refused;
    }
  }
  const status = response.status();
  const headers = headersFromRecord(await response.allHeaders());
  const contentType = headers.get("content-type");
  const success = status >= 200 && status < 300;
  if (success && isHtmlContentType(contentType) === false) {
    return failed("invalid_content", status, finalUrl, `the page is ${contentType?.split(";")[0]}, not HTML`);
  }
  if (success) await waitForRender(page, { selector: request.waitForSelector, quietMs: config.quietMs, deadline });
  const html = await page.content();
  const raw = await response.body().catch(() => null);
  const bytes = raw?.length ?? Buffer.byteLength(html);
  if (Math.max(bytes, Buffer.byteLength(html)) > config.maxBodyBytes) {
    return failed("limit_exceeded", status, finalUrl, `the page is larger than ${config.maxBodyBytes} bytes`);
  }
  const verdict = classifyResponse({ status, headers, html, requestedUrl: request.url, finalUrl });
  const retryAfterMs =
    status === 429 || status === 503 ? parseRetryAfter(headers.get("retry-after"), config.now()) : null;
  if (!verdict.ok) return failed(verdict.reason, status, finalUrl, verdict.message, retryAfterMs);
  // Scripts may rewrite an interstitial before we look; what the site sent counts too.
  const sentVendor = raw ? detectChallenge(raw.toString("utf8"), headers) : null;
  if (sentVendor) {
    return failed(
      "challenge",
      status,
      finalUrl,
      `the site answered with a ${sentVendor} challenge page (status ${status})`,
    );
  }
  return {
    ok: true,
    page: { requestedUrl: request.url, finalUrl, status, contentType: contentType ?? "text/html", body: html, bytes },
  };
};
