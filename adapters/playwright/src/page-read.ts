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
import type { Browser, Page, Response } from "playwright-core";
import type { BrowserKeeper } from "./browser-keeper.js";
import type { ResolvedConfig } from "./config.js";
import { targetKey } from "./guard-proxy.js";
import { busyFailure, isResponsive, memoryFailure, RESPONSIVE_GRACE_MS, within } from "./render-limits.js";
import { waitForRender } from "./render-wait.js";
import type { OpenGuard } from "./robots-client.js";
import { isBrowserGone, transportFailure } from "./transport-errors.js";

export interface ReadDeps {
  readonly config: ResolvedConfig;
  readonly keeper: BrowserKeeper;
  readonly robots: RobotsGate;
  readonly openGuard: OpenGuard;
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
  const guard = await deps.openGuard(route);
  const endRead = deps.keeper.beginRead();
  const navigations: string[] = [];
  const killsBefore = deps.keeper.memoryKills();
  let crashed = false;
  let page: Page | undefined;
  let cleanup: Promise<void> = Promise.resolve();
  /** What a crash, a busy renderer or a dead browser means for this read, if one of them happened. */
  const limitHit = async (url: string, checkBusy: boolean): Promise<AttemptOutcome | null> => {
    if (!browser.isConnected()) return failed("unknown", null, request.url, CRASH_MESSAGE);
    if (crashed) return memoryFailure(config, url, deps.keeper.memoryKills() > killsBefore);
    if (checkBusy && page && !(await isResponsive(page))) return busyFailure(config, url);
    return null;
  };
  try {
    const context = await browser.newContext({
      // Everything, loopback included (Chromium bypasses proxies for loopback unless told otherwise).
      proxy: { server: guard.server, bypass: "<-loopback>" },
      userAgent: config.userAgent,
      serviceWorkers: "block",
      acceptDownloads: false,
    });
    // An interrupted read (host shutting down, run cancelled) closes its context: goto fails at once.
    const abandon = () => void context.close().catch(() => {});
    signal?.addEventListener("abort", abandon, { once: true });
    try {
      // WebSockets are not part of reading a page; the guard would refuse a tunnel to a private target anyway.
      await context.routeWebSocket(/.*/, (socket) => socket.close());
      page = await context.newPage();
      page.on("crash", () => {
        crashed = true;
      });
      const main = page.mainFrame();
      page.on("request", (r) => {
        if (r.isNavigationRequest() && r.frame() === main) navigations.push(r.url());
      });
      let response: Response | null;
      try {
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
    } finally {
      // Closing takes ~100 ms and the result is already known: the read returns now, the context and
      // its guard proxy go away in the background (the guard last, so nothing escapes it meanwhile).
      // Closing the context also ends a renderer stuck in a script.
      signal?.removeEventListener("abort", abandon);
      cleanup = context.close().catch(() => {});
    }
  } catch (error) {
    const limit = await limitHit(request.url, false);
    if (limit) return limit;
    if (isBrowserGone(error)) return failed("unknown", null, request.url, CRASH_MESSAGE);
    return failed("unknown", null, request.url, `the browser read failed: ${String(error).split("\n")[0]}`);
  } finally {
    void cleanup.then(() => {
      endRead();
      return guard.close();
    });
  }
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
