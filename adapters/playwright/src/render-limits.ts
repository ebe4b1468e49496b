import { type AttemptOutcome, failedAttempt } from "@gleaner/core";
import type { Page } from "playwright-core";
import type { ResolvedConfig } from "./config.js";

/**
 * How a read that hit one of the browser's limits ends. Both are `limit_exceeded`, which is not
 * retried: the same page would exhaust the same limit again, and each attempt costs the whole budget.
 */

/** How long a renderer gets to answer a trivial script before it counts as busy. */
export const RESPONSIVE_GRACE_MS = 1_500;

const megabytes = (bytes: number): number => Math.round(bytes / 1024 / 1024);

export const memoryFailure = (config: ResolvedConfig, url: string, killedByWatchdog: boolean): AttemptOutcome =>
  failedAttempt(
    "limit_exceeded",
    null,
    url,
    killedByWatchdog
      ? `the page used more than ${megabytes(config.maxRendererMemoryBytes)} MB of memory in the browser; its renderer was stopped`
      : `the page's renderer crashed, most likely out of memory (JavaScript heap limit ${megabytes(config.maxRendererMemoryBytes / 2)} MB)`,
  );

export const busyFailure = (config: ResolvedConfig, url: string): AttemptOutcome =>
  failedAttempt(
    "limit_exceeded",
    null,
    url,
    `the page's scripts kept the browser busy past the ${config.readTimeoutMs / 1000} s render budget`,
  );

/** Whether the page's main thread runs a trivial script within `graceMs` (a page stuck in a loop does not). */
export const isResponsive = async (page: Page, graceMs = RESPONSIVE_GRACE_MS): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  try {
    return await Promise.race([
      page.evaluate("1").then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
};

/** `work`'s value, or `null` when it has not settled within `ms` (it keeps running; its result is dropped). */
export const within = async <A>(work: Promise<A>, ms: number): Promise<{ readonly value: A } | null> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, ms));
  });
  try {
    return await Promise.race([work.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
};
