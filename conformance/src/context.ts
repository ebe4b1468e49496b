import type { RunningHost } from "@gleaner/koa";
import { type Client, makeClient } from "./client.js";

/** What a capability file gets: the running host and a way to make fresh, isolated owners. */
export interface SuiteContext {
  readonly host: () => RunningHost;
  /** A new owner with its own key (random name, so cases never share state). */
  readonly owner: (credits?: number) => Promise<Owner>;
  readonly anonymous: () => Client;
  readonly supports: Supports;
  /** A second host on the same adapters whose clock is virtual (Effect's TestClock). */
  readonly virtualHost: () => Promise<RunningHost>;
}

export interface Owner extends Client {
  readonly name: string;
  readonly key: string;
}

/**
 * What an adapter set can do. Cases that need a capability are registered only when it is
 * supported, and the suite prints each capability it leaves out and why: no silent skips.
 */
export interface Supports {
  /**
   * Routines fire on Effect's Clock, so a host on TestClock can be driven in virtual time (default
   * true). A queue whose scheduler keeps its own real-time timers (Agenda) sets false, and the
   * schedule cases, which advance a virtual clock, are left out with a printed reason.
   */
  readonly virtualTime?: boolean;
  /** The host renders pages in Chromium (`render: browser`, GLEANER_BROWSER_PATH). */
  readonly browser?: boolean;
}

export const makeOwnerFactory =
  (host: () => RunningHost) =>
  async (credits = 100): Promise<Owner> => {
    const name = `owner-${globalThis.crypto.randomUUID()}`;
    const key = await host().createKey(name, credits);
    return { name, key, ...makeClient(host().url, key) };
  };
