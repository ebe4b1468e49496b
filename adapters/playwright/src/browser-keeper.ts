import { type Browser, chromium } from "playwright-core";
import { type MemoryWatchdog, startMemoryWatchdog } from "./memory-watchdog.js";

/**
 * Flags for a browser on a closed network: nothing Chromium does on its own (update checks, sync,
 * metrics, DNS prefetch, QUIC) may reach out, and running as root in a container needs no sandbox.
 * Every byte a page sends goes through the read's guard proxy (page-read.ts) or nowhere; the flags
 * below remove what could go around it, and page JavaScript cannot change a command line.
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
  "--disable-pings",
  "--media-router=0",
  "--disable-client-side-phishing-detection",
  "--disable-domain-reliability",
  "--disable-component-extensions-with-background-pages",
  // Services that ask Google from inside a render, through the read's proxy: autofill asked
  // content-autofill.googleapis.com for every page with a form (measured, issue 33).
  "--disable-features=AutofillServerCommunication,OptimizationHints,OptimizationGuideModelDownloading,Translate,MediaRouter,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions",
  // Images never change the text or attributes a source reads (`src` stays in the DOM); not fetching
  // them makes `load` come sooner and keeps a page's requests to what builds the document.
  "--blink-settings=imagesEnabled=false",
  // WebRTC: no UDP at all, TURN over TCP only through the proxy (so through the guard). Measured:
  // without it a page's RTCPeerConnection sent STUN datagrams to 127.0.0.1, 127.0.0.3 and [::1];
  // `--force-webrtc-ip-handling-policy` (the name used before) is not a Chromium switch and did nothing.
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  // No DNS of its own: every name resolves to "not found" except the guard proxy's address, which
  // is a literal. Pages reach names only through the proxy, which resolves and checks them.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
  // Anything outside a read's context (the default context, browser-level fetches) has a proxy
  // that does not exist: it goes nowhere rather than around the guard.
  "--proxy-server=http://127.0.0.1:9",
  "--proxy-bypass-list=<-loopback>",
];

export interface BrowserLimits {
  /** Resident memory one renderer may use before the watchdog kills it. */
  readonly rendererMemoryBytes: number;
}

/** The flags for one launch: the fixed ones, the JavaScript heap cap, and this keeper's marker. */
export const launchArgs = (limits: BrowserLimits, marker: string): string[] => [
  ...CHROMIUM_ARGS,
  // The heap gets half the renderer cap: the rest is DOM, layout, buffers and the renderer itself.
  `--js-flags=--max-old-space-size=${Math.max(16, Math.floor(limits.rendererMemoryBytes / 2 / 1024 / 1024))}`,
  // Chromium ignores unknown switches; the watchdog finds this browser's process by it.
  `--gleaner-browser=${marker}`,
];

/**
 * One Chromium for every read, launched on the first browser read (hosts that never render never
 * start it). When it dies (crash, OOM kill) the next read launches a new one; the read that was in
 * flight fails on its own.
 */
export class BrowserKeeper {
  private current: Promise<Browser> | null = null;
  private closed = false;
  private readonly marker = globalThis.crypto.randomUUID();
  private watchdog: MemoryWatchdog | null = null;
  private readsInFlight = 0;

  constructor(
    private readonly executablePath: string,
    private readonly limits: BrowserLimits,
  ) {}

  /** Marks a read in flight (the memory watchdog only looks while there is one); call the result when done. */
  beginRead(): () => void {
    this.readsInFlight++;
    let done = false;
    return () => {
      if (!done) this.readsInFlight--;
      done = true;
    };
  }

  /** Renderers killed for their memory so far; a read compares the count before and after itself. */
  memoryKills(): number {
    return this.watchdog?.kills() ?? 0;
  }

  get(): Promise<Browser> {
    if (this.closed) return Promise.reject(new Error("the browser fetcher has been shut down"));
    if (this.current === null) {
      const launching = chromium
        .launch({
          executablePath: this.executablePath,
          headless: true,
          args: launchArgs(this.limits, this.marker),
          timeout: 30_000,
        })
        .then((browser) => {
          browser.on("disconnected", () => {
            if (this.current === launching) this.current = null;
          });
          this.watchdog ??= startMemoryWatchdog(
            this.marker,
            this.limits.rendererMemoryBytes,
            () => this.readsInFlight > 0,
          );
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
    this.watchdog?.stop();
    if (current) await current.then((browser) => browser.close()).catch(() => {});
  }
}
