import { type Browser, chromium } from "playwright-core";

/**
 * Flags for a browser on a closed network: nothing Chromium does on its own (update checks, sync,
 * metrics, DNS prefetch, QUIC) may reach out, and running as root in a container needs no sandbox.
 */
export const CHROMIUM_ARGS: ReadonlyArray<string> = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--disable-breakpad",
  "--metrics-recording-only",
  "--dns-prefetch-disable",
  // Images never change the text or attributes a source reads (`src` stays in the DOM); not fetching
  // them makes `load` come sooner and keeps a page's requests to what builds the document.
  "--blink-settings=imagesEnabled=false",
  // WebRTC can send UDP around any HTTP proxy; this keeps it on the (guarded) proxy or nowhere.
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
];

/**
 * One Chromium for every read, launched on the first browser read (hosts that never render never
 * start it). When it dies (crash, OOM kill) the next read launches a new one; the read that was in
 * flight fails on its own.
 */
export class BrowserKeeper {
  private current: Promise<Browser> | null = null;
  private closed = false;

  constructor(private readonly executablePath: string) {}

  get(): Promise<Browser> {
    if (this.closed) return Promise.reject(new Error("the browser fetcher has been shut down"));
    if (this.current === null) {
      const launching = chromium
        .launch({ executablePath: this.executablePath, headless: true, args: [...CHROMIUM_ARGS], timeout: 30_000 })
        .then((browser) => {
          browser.on("disconnected", () => {
            if (this.current === launching) this.current = null;
          });
          return browser;
        });
      // A failed launch is not cached: the next read tries again (the binary may have been installed since).
      launching.catch(() => {
        if (this.current === launching) this.current = null;
      });
      this.current = launching;
    }
    return this.current;
  }

  /** True when a browser is running now (for tests and diagnostics). */
  async running(): Promise<boolean> {
    const current = this.current;
    return current !== null && (await current.then((b) => b.isConnected()).catch(() => false));
  }

  async close(): Promise<void> {
    this.closed = true;
    const current = this.current;
    this.current = null;
    if (current) await current.then((browser) => browser.close()).catch(() => {});
  }
}
