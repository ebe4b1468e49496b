import type { ReadFailureReason } from "../schema/run.js";
import { hasPasswordForm, hasVisibleText, pageTitle, visibleText } from "./page-text.js";

/**
 * Turning a response into a page or a readFailure reason. Shared by every fetcher adapter so a page a
 * browser renders and a page undici reads are judged alike. The order matters: a challenge is named
 * as such whatever its status (Cloudflare serves them as 403 or 503, some vendors as 200), because a
 * user can act on "challenge" (use a proxy, ask the site) and not on a bare 403.
 */

export interface ResponseHeaders {
  readonly get: (name: string) => string | null;
}

/** Headers as a plain record (undici's `IncomingHttpHeaders`), read case-insensitively. */
export const headersFromRecord = (
  record: Record<string, string | ReadonlyArray<string> | undefined>,
): ResponseHeaders => {
  const lower = new Map<string, string>();
  for (const [name, value] of Object.entries(record)) {
    if (value !== undefined) lower.set(name.toLowerCase(), typeof value === "string" ? value : value.join(", "));
  }
  return { get: (name) => lower.get(name.toLowerCase()) ?? null };
};

/** Only HTML is a page. XHTML counts; a missing Content-Type is sniffed from the body's start. */
export const isHtmlContentType = (contentType: string | null): boolean | "unknown" => {
  if (contentType === null || contentType.trim() === "") return "unknown";
  const essence = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return essence === "text/html" || essence === "application/xhtml+xml";
};

export const looksLikeHtml = (start: string): boolean =>
  /^\s*(<!doctype\s+html|<html|<head|<body|<!--|<meta|<title|<div|<p\b)/i.test(start.slice(0, 512));

interface ChallengeSignature {
  readonly vendor: string;
  readonly header?: (headers: ResponseHeaders) => boolean;
  readonly body?: RegExp;
}

/** Markers of anti-bot interstitials, by vendor. Each is specific enough not to appear on real content. */
const challengeSignatures: ReadonlyArray<ChallengeSignature> = [
  { vendor: "Cloudflare", header: (h) => (h.get("cf-mitigated") ?? "").toLowerCase() === "challenge" },
  {
    vendor: "Cloudflare",
    body: /<title>\s*(just a moment|attention required! \| cloudflare)|cf-chl-|cf_chl_opt|\/cdn-cgi\/challenge-platform\/|challenges\.cloudflare\.com\/turnstile|class=["'][^"']*cf-turnstile|checking (if the site connection is secure|your browser before accessing)/i,
  },
  { vendor: "DataDome", body: /captcha-delivery\.com|\bdd\s*=\s*\{[^}]*'cid'/i },
  {
    vendor: "DataDome",
    header: (h) => h.get("x-datadome") !== null && (h.get("x-dd-b") !== null || h.get("x-datadome-cid") !== null),
  },
  {
    vendor: "PerimeterX",
    body: /_pxCaptcha|px-captcha|captcha\.px-cd[nm]\.net|window\._pxAppId|\/_px\/|press (&amp;|&) hold to confirm/i,
  },
  {
    vendor: "Incapsula",
    body: /_Incapsula_Resource|Incapsula incident ID|incap_ses_|Request unsuccessful\. Incapsula/i,
  },
  { vendor: "Akamai", body: /\/_sec\/cp_challenge\/|sec-if-cpt-container/i },
];

/** CAPTCHA widgets appear on ordinary pages too (contact forms), so alone they are not a challenge. */
const captchaWidget =
  /class=["'][^"']*\b(g-recaptcha|h-captcha)\b|www\.(google|recaptcha)\.(com|net)\/recaptcha\/api|hcaptcha\.com\/1\/api\.js/i;
const humanCheckWording =
  /verify (that )?you are (a )?human|are you a robot|not a robot|unusual traffic|complete the security check|confirm you are human|bot verification/i;

/** Returns the vendor name when the response is an anti-bot interstitial, otherwise null. */
export const detectChallenge = (html: string, headers: ResponseHeaders): string | null => {
  for (const signature of challengeSignatures) {
    if (signature.header?.(headers) || signature.body?.test(html)) return signature.vendor;
  }
  if (captchaWidget.test(html)) {
    const text = visibleText(html);
    if (humanCheckWording.test(text) || humanCheckWording.test(pageTitle(html)) || text.length < 400) return "CAPTCHA";
  }
  return null;
};

const loginPath =
  /\/(log-?in|sign-?in|signin|logon|auth|authenticate|sso|session\/new|users\/sign_in|account\/login|accounts\/login|wp-login\.php)(\/|\.[a-z]+|$)/i;

/** A URL whose path (or `next=`-style query) says it is a login page. */
export const isLoginUrl = (url: string): boolean => {
  try {
    const parsed = new URL(url);
    return loginPath.test(parsed.pathname);
  } catch {
    return false;
  }
};

/**
 * Did the read land on a login page instead of the content? Yes when a redirect ended on a login path
 * or on a page with a password form, or when the requested page itself answered with a login form and
 * little else (sites that gate content in place). A password box in a long page's header is not enough.
 */
export const isLoginWall = (requestedUrl: string, finalUrl: string, html: string): boolean => {
  const redirected = stripHash(requestedUrl) !== stripHash(finalUrl);
  if (redirected && (isLoginUrl(finalUrl) || hasPasswordForm(html))) return true;
  if (!redirected && !isLoginUrl(requestedUrl) && hasPasswordForm(html)) return visibleText(html).length < 1500;
  return false;
};

const stripHash = (url: string): string => url.replace(/#.*$/, "");

/** A body with nothing a reader would see: no text, or only whitespace and markup. */
export const isEmptyBody = (html: string): boolean => !hasVisibleText(html);

/** The reason for a non-success status, once challenges have been ruled out. null for 2xx. */
export const reasonForStatus = (status: number): ReadFailureReason | null => {
  if (status >= 200 && status < 300) return null;
  if (status === 401 || status === 403) return "forbidden";
  if (status === 429) return "rate_limited";
  return "http_error";
};

/**
 * Retry-After, as seconds or an HTTP date, in milliseconds from `now`. null when absent or unreadable;
 * never negative.
 */
export const parseRetryAfter = (value: string | null, now: number): number | null => {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number.parseInt(trimmed, 10) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
};

export type BodyVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: ReadFailureReason; readonly message: string };

/**
 * Judges a fully read response. `status` is the last hop's status (redirects already followed).
 * Everything not `ok` is a failure and must never be handed to extraction.
 */
export const classifyResponse = (input: {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly html: string;
  readonly requestedUrl: string;
  readonly finalUrl: string;
}): BodyVerdict => {
  const vendor = detectChallenge(input.html, input.headers);
  if (vendor)
    return {
      ok: false,
      reason: "challenge",
      message: `the site answered with a ${vendor} challenge page (status ${input.status})`,
    };
  const byStatus = reasonForStatus(input.status);
  if (byStatus) return { ok: false, reason: byStatus, message: `the site answered with status ${input.status}` };
  if (isLoginWall(input.requestedUrl, input.finalUrl, input.html)) {
    return { ok: false, reason: "login_redirect", message: "the site sent a login page instead of the content" };
  }
  if (isEmptyBody(input.html)) return { ok: false, reason: "empty_body", message: "the page has no text" };
  return { ok: true };
};
