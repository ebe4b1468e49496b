import type { Page } from "playwright-core";

/**
 * Resolves when the network has been quiet (no request in flight) for `quietMs`. Playwright's own
 * "networkidle" is fixed at 500 ms; ours is configurable and counts only what this page started.
 */
const networkQuiet = (page: Page, quietMs: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    let inFlight = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      page.off("request", started);
      page.off("requestfinished", ended);
      page.off("requestfailed", ended);
      resolve();
    };
    const arm = () => {
      clearTimeout(timer);
      if (inFlight === 0) timer = setTimeout(done, quietMs);
    };
    const started = () => {
      inFlight++;
      clearTimeout(timer);
    };
    const ended = () => {
      inFlight = Math.max(0, inFlight - 1);
      arm();
    };
    page.on("request", started);
    page.on("requestfinished", ended);
    page.on("requestfailed", ended);
    signal.addEventListener("abort", done, { once: true });
    arm();
  });

/**
 * After `load`: wait until the item selector is present or the network is quiet, whichever comes
 * first, never past `deadline`. At the deadline the page is read as it is: extraction and the run's
 * checks judge a page that never rendered its list (a timeout here would hide what the page showed).
 */
export const waitForRender = async (
  page: Page,
  options: { readonly selector: string | undefined; readonly quietMs: number; readonly deadline: number },
): Promise<void> => {
  const remaining = options.deadline - Date.now();
  if (remaining <= 0) return;
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, remaining);
  });
  const signals: Array<Promise<unknown>> = [bounded, networkQuiet(page, options.quietMs, stop.signal)];
  if (options.selector) {
    signals.push(page.waitForSelector(options.selector, { state: "attached", timeout: remaining }).catch(() => {}));
  }
  try {
    await Promise.race(signals);
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
};
