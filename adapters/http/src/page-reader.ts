import {
  type AttemptOutcome,
  checkUrl,
  classifyResponse,
  decodeHtml,
  type FetchRequest,
  type PageValidators,
  isHtmlContentType,
  looksLikeHtml,
  originOnly,
  parseRetryAfter,
  failedAttempt,
  type RobotsGate,
  type Route,
} from "@gleaner/core";
import type { ResolvedConfig } from "./config.js";
import { classifyTransportError } from "./transport-errors.js";
import { BodyTooLargeError, type Exchange } from "./transport.js";

/** Error pages are read only far enough to recognise a challenge; their size is not our problem. */
const ERROR_PAGE_BYTES = 256 * 1024;

const failed = failedAttempt;

/** Opens one GET on a route, with the SSRF checks of page reads. */
export type OpenExchange = (
  url: string,
  route: Route,
  signal: AbortSignal,
  headers?: Readonly<Record<string, string>>,
) => Promise<Exchange>;

/**
 * One attempt at reading a page on one route: every redirect hop re-checked against the SSRF policy
 * and robots.txt, then the final response classified. Never throws: every way a read can go wrong
 * ends as a classified outcome.
 */
export const readOnce = async (
  config: ResolvedConfig,
  open: OpenExchange,
  robots: RobotsGate,
  request: FetchRequest,
  route: Route,
  outer: AbortSignal,
): Promise<AttemptOutcome> => {
  const attempt = attemptSignal(outer, config.attemptTimeoutMs);
  const signal = attempt.signal;
  let url = request.url;
  try {
    for (let hops = 0; ; hops++) {
      const verdict = checkUrl(url, config.allow);
      if (!verdict.allowed)
        return failed("unsafe_target", null, url, `refused to read ${originOnly(url) ?? "the URL"}: ${verdict.why}`);
      const refusal = request.ignoreRobots ? null : await robots.verdict(url, route);
      if (refusal) return refusal;
      // The stored read's validators go only to the hop where that read ended (decision 0042).
      const conditional = request.conditional?.url === url ? conditionalHeaders(request.conditional) : null;
      const response = await open(url, route, signal, conditional ?? undefined);
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        response.discard();
        if (hops >= config.maxRedirects) {
          return failed("limit_exceeded", response.status, url, `more than ${config.maxRedirects} redirects`);
        }
        try {
          url = new URL(location, url).href;
        } catch {
          return failed("http_error", response.status, url, "the redirect's Location is not a valid URL");
        }
        continue;
      }
      if (response.status === 304 && conditional !== null) return await notModified(request.url, url, response);
      return await judge(config, request, url, response);
    }
  } catch (error) {
    const { reason, message } = classifyTransportError(error, attempt.timedOut());
    return failed(reason, null, url, message);
  } finally {
    attempt.release();
  }
};

/**
 * One attempt's signal: aborted by `outer` or after `timeoutMs`, and released when the attempt ends.
 * Not AbortSignal.timeout, which holds its timer and signal for the whole timeout after every page, nor
 * AbortSignal.any, whose bookkeeping in Node outlives each page (bench:growth saw ~300 bytes a page).
 */
const attemptSignal = (outer: AbortSignal, timeoutMs: number) => {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException("The attempt took too long.", "TimeoutError"));
  }, timeoutMs);
  const follow = () => controller.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener("abort", follow, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    release: () => {
      clearTimeout(timer);
      outer.removeEventListener("abort", follow);
    },
  };
};

/** If-None-Match / If-Modified-Since from a stored read's validators; null when it has none. */
const conditionalHeaders = (validators: PageValidators): Record<string, string> | null => {
  const headers: Record<string, string> = {};
  if (validators.etag !== null) headers["if-none-match"] = validators.etag;
  if (validators.lastModified !== null) headers["if-modified-since"] = validators.lastModified;
  return Object.keys(headers).length > 0 ? headers : null;
};

/** What a response says identifies its version, for the next read's conditional request. */
const validatorsOf = (headers: Exchange["headers"]): PageValidators => ({
  etag: headers.get("etag"),
  lastModified: headers.get("last-modified"),
});

/**
 * A 304 to a conditional read: the stored page stands; the engine supplies its body. The (empty)
 * body is read to its end rather than discarded: discarding aborts the response, which costs an
 * error object and closes the kept-alive connection the next page would have used.
 */
const notModified = async (requestedUrl: string, url: string, response: Exchange): Promise<AttemptOutcome> => {
  await response.readBody(ERROR_PAGE_BYTES).catch(() => undefined);
  return {
    ok: true,
    page: {
      requestedUrl,
      finalUrl: url,
      status: 304,
      contentType: response.headers.get("content-type") ?? "text/html",
      body: "",
      bytes: 0,
      validators: validatorsOf(response.headers),
      notModified: true,
    },
  };
};

const judge = async (
  config: ResolvedConfig,
  request: FetchRequest,
  url: string,
  response: Exchange,
): Promise<AttemptOutcome> => {
  const requestedUrl = request.url;
  const { status, headers } = response;
  const contentType = headers.get("content-type");
  const success = status >= 200 && status < 300;
  if (success && isHtmlContentType(contentType) === false) {
    response.discard();
    return failed("invalid_content", status, url, `the page is ${contentType?.split(";")[0]}, not HTML`);
  }
  let html: string;
  let wireBytes: number;
  try {
    const body = await response.readBody(success ? config.maxBodyBytes : ERROR_PAGE_BYTES);
    html = decodeHtml(body.bytes, contentType);
    wireBytes = body.wireBytes;
  } catch (error) {
    if (success || !(error instanceof BodyTooLargeError)) throw error;
    html = "";
    wireBytes = 0;
  }
  // The bytes the last accepted run read here were judged a page then (decision 0042).
  const known = success && request.known?.url === url && request.known.body === html;
  const verdict = known
    ? ({ ok: true } as const)
    : classifyResponse({ status, headers, html, requestedUrl, finalUrl: url });
  if (!verdict.ok) {
    const retryAfterMs =
      status === 429 || status === 503 ? parseRetryAfter(headers.get("retry-after"), config.now()) : null;
    return failed(verdict.reason, status, url, verdict.message, retryAfterMs);
  }
  if (!known && isHtmlContentType(contentType) === "unknown" && !looksLikeHtml(html)) {
    return failed("invalid_content", status, url, "the response has no Content-Type and does not look like HTML");
  }
  return {
    ok: true,
    page: {
      requestedUrl,
      finalUrl: url,
      status,
      contentType: contentType ?? "text/html",
      body: html,
      bytes: wireBytes,
      validators: validatorsOf(headers),
    },
  };
};

/** After a failure on one route, is the next route (a proxy) worth trying? */
