import type { ReadFailureReason } from "../schema/run.js";

/** The site answered, and the answer says it will not serve us (status or challenge page). */
const siteRefusals: ReadonlyArray<ReadFailureReason> = ["forbidden", "challenge", "rate_limited"];

/**
 * Reasons after which `proxy: auto` tries the read again through a proxy: the site's refusals,
 * plus a reset connection (commonly a firewall dropping a known address).
 */
export const proxyRetryReasons: ReadonlySet<ReadFailureReason> = new Set([...siteRefusals, "connection_reset"]);

/**
 * Reasons that make a run `blocked` (SPEC.md) when every read failed with one of them, as opposed
 * to `failed` (a fault on our side): the site's refusals, plus a redirect to a login page and an
 * empty body, which a site serves to visitors it will not let in.
 */
export const blockingReasons: ReadonlySet<ReadFailureReason> = new Set([
  ...siteRefusals,
  "login_redirect",
  "empty_body",
]);
