import type { Credits, DocumentParser, RunQueue, Storage } from "@gleaner/core";
import type { HostConfig, LayerOverrides, RunningHost } from "@gleaner/koa";
import type * as Layer from "effect/Layer";
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
  /**
   * Puts adapters on the main host (research's scripted model and search engine), so the
   * capability's jobs run on the set's queue. Call it while registering, before the hooks run.
   */
  readonly onMainHost: (setup: HostSetup) => void;
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

/**
 * What every contract takes (suite, storeContract, parserContract), after Keyv's and
 * abstract-level's test suites: a name for the titles, a factory for the Layer under test, and
 * what the adapter supports.
 */
export interface UnderTest<Provides> {
  /** Shown in the test titles, e.g. "memory" or "postgres + agenda(postgres)". */
  readonly name: string;
  /** The Layer under test; the contract builds it once. */
  readonly layer: () => Layer.Layer<Provides, unknown>;
  readonly supports?: Supports;
}

/** A capability a set may lack, with the default when the set does not say, and why a case needs it. */
export interface Requirement {
  readonly flag: keyof Supports;
  readonly byDefault: boolean;
  readonly why: string;
}

/**
 * One area of SPEC.md as a case module declares it: the cases it registers and the capabilities
 * they need. An adapter author can run one alone: `suite(set, [capabilities.rows])`.
 */
export interface Capability {
  readonly name: string;
  readonly requires?: ReadonlyArray<Requirement>;
  /** Registers the mocha cases; `set` is there for capabilities that start hosts of their own (research). */
  readonly register: (ctx: SuiteContext, set: AdapterSet) => void;
}

/**
 * Adapters a capability puts on the suite's main host, so its jobs run on the set's queue (e.g.
 * research runs queued through Agenda). `start` runs before the main host starts and `close` after it
 * closes, so what a capability starts there lives as long as the suite.
 */
export interface HostSetup {
  readonly start: () => Promise<Pick<LayerOverrides, "model" | "search">>;
  readonly close: () => Promise<void>;
}

/** The first requirement the set does not meet, or null. */
export const missingRequirement = (capability: Capability, supports: Supports): Requirement | null =>
  capability.requires?.find((r) => (supports[r.flag] ?? r.byDefault) !== true) ?? null;

/** A new owner with its own key on `host` (random name, so cases never share state). */
export const ownerOn = async (host: RunningHost, credits = 100): Promise<Owner> => {
  const name = `owner-${globalThis.crypto.randomUUID()}`;
  const key = await host.createKey(name, credits);
  return { name, key, ...makeClient(host.url, key) };
};

export const makeOwnerFactory =
  (host: () => RunningHost) =>
  (credits = 100): Promise<Owner> =>
    ownerOn(host(), credits);

/** The adapters under test: the store (`layer`), and optionally a queue and a parser. */
export interface AdapterSet extends UnderTest<Storage | Credits> {
  /**
   * The run queue under test; the configured default (memory) when omitted. Called with a `name`
   * (lower-case letters, digits and _), it gives a queue of its own by that name (e.g. its own
   * Agenda table or collection): a capability that starts further hosts on the set (research) runs
   * them on the set's kind of queue, without a host taking another host's jobs.
   */
  readonly queue?: (name?: string) => Layer.Layer<RunQueue, unknown>;
  /** The document parser under test; the configured default (htmlparser2) when omitted. */
  readonly parser?: () => Layer.Layer<DocumentParser, unknown>;
  /** Host configuration overrides (the suite always binds an ephemeral loopback port). */
  readonly config?: Partial<HostConfig>;
}
