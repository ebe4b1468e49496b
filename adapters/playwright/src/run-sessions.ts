import type { Route } from "@gleaner/core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ResolvedConfig } from "./config.js";
import type { GuardProxy } from "./guard-proxy.js";
import type { OpenGuard } from "./robots-client.js";

/**
 * Why sessions: a fresh context, guard proxy and page per read were most of a rendered read's time
 * (bench/README.md#run-books-browser). The reads of one run (FetchRequest.runId) on one route share them
 * instead: the run's cookies and storage stay within the run, never reach another run, and every
 * request still goes through the run's guard proxy. A read without a run id, or one that finds its
 * run's session busy, gets a session of its own that is closed after it (the behaviour before).
 */

/** What one read works with; `end` says whether the session is fit for the run's next read. */
export interface Lease {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly guard: GuardProxy;
  readonly end: (reusable: boolean) => void;
}

interface Session {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly guard: GuardProxy;
  busy: boolean;
  idle?: NodeJS.Timeout;
  /** The page leaving the last read's document; the next read starts after it (or it would interrupt it). */
  blanking?: Promise<void>;
}

/** A session nobody reads with for this long is closed (a run's next read comes within moments). */
const IDLE_CLOSE_MS = 10_000;

const routeKey = (route: Route): string => (route.kind === "proxy" ? route.proxy.url : "direct");

export class RunSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly config: ResolvedConfig,
    private readonly openGuard: OpenGuard,
  ) {}

  async lease(browser: Browser, runId: string | undefined, route: Route): Promise<Lease> {
    const key = runId === undefined ? null : `${runId} ${routeKey(route)}`;
    const existing = key === null ? undefined : this.sessions.get(key);
    if (
      existing &&
      !existing.busy &&
      existing.browser === browser &&
      browser.isConnected() &&
      !existing.page.isClosed()
    ) {
      clearTimeout(existing.idle);
      existing.busy = true;
      existing.guard.forget();
      await existing.blanking;
      return this.leaseOf(existing, key);
    }
    const session = await this.open(browser, route);
    // The run's session is busy (or gone): this read gets its own, which the run keeps if it has none.
    const keep = key !== null && (existing === undefined || existing.browser !== browser || existing.page.isClosed());
    if (keep && key !== null) {
      if (existing) void this.close(existing);
      this.sessions.set(key, session);
    }
    return this.leaseOf(session, keep ? key : null);
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((session) => this.close(session)));
  }

  private leaseOf(session: Session, key: string | null): Lease {
    let ended = false;
    return {
      context: session.context,
      page: session.page,
      guard: session.guard,
      end: (reusable) => {
        if (ended) return;
        ended = true;
        session.busy = false;
        if (key !== null && reusable && this.sessions.get(key) === session) {
          // Nothing of this read may run while the session waits (the memory watchdog only looks during
          // reads): popups are closed and the page leaves the document, stopping its scripts.
          for (const other of session.context.pages()) if (other !== session.page) void other.close().catch(() => {});
          session.blanking = session.page.goto("about:blank").then(
            () => {},
            () => {},
          );
          session.idle = setTimeout(() => {
            if (this.sessions.get(key) === session && !session.busy) {
              this.sessions.delete(key);
              void this.close(session);
            }
          }, IDLE_CLOSE_MS);
          session.idle.unref();
          return;
        }
        if (key !== null && this.sessions.get(key) === session) this.sessions.delete(key);
        void this.close(session);
      },
    };
  }

  private async open(browser: Browser, route: Route): Promise<Session> {
    const guard = await this.openGuard(route);
    try {
      const context = await browser.newContext({
        // Everything, loopback included (Chromium bypasses proxies for loopback unless told otherwise).
        proxy: { server: guard.server, bypass: "<-loopback>" },
        userAgent: this.config.userAgent,
        serviceWorkers: "block",
        acceptDownloads: false,
      });
      // WebSockets are not part of reading a page; the guard would refuse a tunnel to a private target anyway.
      await context.routeWebSocket(/.*/, (socket) => socket.close());
      const page = await context.newPage();
      return { browser, context, page, guard, busy: true };
    } catch (error) {
      await guard.close();
      throw error;
    }
  }

  /** Closing takes ~100 ms; the guard goes last, so nothing escapes it meanwhile. */
  private async close(session: Session): Promise<void> {
    clearTimeout(session.idle);
    await session.context.close().catch(() => {});
    await session.guard.close();
  }
}
