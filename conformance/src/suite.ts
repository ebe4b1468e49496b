import type { Credits, DocumentParser, RunQueue, Storage } from "@gleaner/core";
import { type HostConfig, type RunningHost, startHost } from "@gleaner/koa";
import type { Layer } from "effect";
import { after, before, describe } from "mocha";
import { pino } from "pino";
import { makeClient } from "./client.js";
import { authCases } from "./cases/auth.js";
import { bolaCases } from "./cases/bola.js";
import { browserCases } from "./cases/browser.js";
import { createDatasetCases } from "./cases/create-dataset.js";
import { edgeCases } from "./cases/edges.js";
import { fuzzCases } from "./cases/fuzz.js";
import { liveTraceCases } from "./cases/live-trace.js";
import { diagnosticsCases } from "./cases/diagnostics.js";
import { listDatasetsCases } from "./cases/list-datasets.js";
import { changeCases } from "./cases/changes.js";
import { exportCases } from "./cases/exports.js";
import { researchCases } from "./cases/research.js";
import { rowEditCases } from "./cases/row-edits.js";
import { rowCases } from "./cases/rows.js";
import { runCases } from "./cases/runs.js";
import { scheduleCases } from "./cases/schedules.js";
import { updateDatasetCases } from "./cases/update-dataset.js";
import { usageCases } from "./cases/usage.js";
import { makeOwnerFactory, type SuiteContext, type Supports } from "./context.js";

export interface AdapterSet {
  /** Shown in the test titles, e.g. "memory" or "postgres + agenda(postgres)". */
  readonly name: string;
  /** The store under test (Storage and Credits). Built once per suite. */
  readonly layer: () => Layer.Layer<Storage | Credits, unknown>;
  /** The run queue under test; the configured default (memory) when omitted. */
  readonly queue?: () => Layer.Layer<RunQueue, unknown>;
  /** The document parser under test; the configured default (htmlparser2) when omitted. */
  readonly parser?: () => Layer.Layer<DocumentParser, unknown>;
  readonly supports?: Supports;
  /** Host configuration overrides (the suite always binds an ephemeral loopback port). */
  readonly config?: Partial<HostConfig>;
}

/** Capability files, one per area of SPEC.md, each registering its mocha cases. */
const capabilities: ReadonlyArray<(ctx: SuiteContext) => void> = [
  authCases,
  createDatasetCases,
  listDatasetsCases,
  updateDatasetCases,
  usageCases,
  runCases,
  rowCases,
  rowEditCases,
  changeCases,
  exportCases,
  scheduleCases,
  edgeCases,
  liveTraceCases,
  bolaCases,
  fuzzCases,
  diagnosticsCases,
];

/**
 * Registers the whole conformance suite for one adapter set. Adopt it in three lines:
 *
 *   import { suite } from "@gleaner/conformance";
 *   import { MyStoreLive } from "my-adapter";
 *   suite({ name: "my-adapter", layer: () => MyStoreLive });
 */
export const suite = (set: AdapterSet): void => {
  describe(`Gleaner conformance: ${set.name}`, function () {
    this.timeout(60_000);
    let running: RunningHost | undefined;
    let virtual: Promise<RunningHost> | undefined;
    const start = (virtualClock: boolean) =>
      startHost({
        overrides: {
          store: set.layer(),
          ...(set.queue ? { queue: set.queue() } : {}),
          ...(set.parser ? { parser: set.parser() } : {}),
        },
        virtualClock,
        // The fixture sites run on loopback, which the SSRF guard refuses unless allowed.
        config: {
          port: 0,
          host: "127.0.0.1",
          logLevel: "silent",
          allowPrivateTargets: ["127.0.0.1/32"],
          ...set.config,
        },
        logger: pino({ level: "silent" }),
      });
    const host = (): RunningHost => {
      if (!running) throw new Error("The host is not running: the suite's before hook failed.");
      return running;
    };
    before(async () => {
      running = await startHost({
        overrides: {
          store: set.layer(),
          ...(set.queue ? { queue: set.queue() } : {}),
          ...(set.parser ? { parser: set.parser() } : {}),
        },
        // The fixture sites run on loopback, which the SSRF guard refuses unless allowed.
        config: {
          port: 0,
          host: "127.0.0.1",
          logLevel: "silent",
          allowPrivateTargets: ["127.0.0.1/32"],
          ...set.config,
        },
        logger: pino({ level: "silent" }),
      });
    });
    after(async () => {
      await running?.close();
      await (await virtual)?.close();
    });
    const ctx: SuiteContext = {
      host,
      owner: makeOwnerFactory(host),
      anonymous: () => makeClient(host().url, null),
      supports: set.supports ?? {},
      virtualHost: () => (virtual ??= start(true)),
    };
    for (const register of capabilities) {
      if (register === scheduleCases && ctx.supports.virtualTime === false) {
        console.log(
          `[conformance] ${set.name}: schedule cases NOT RUN — they advance a virtual clock (TestClock) and this ` +
            "set's scheduler fires on real time (supports.virtualTime: false); its adapter tests cover routines.",
        );
        continue;
      }
      register(ctx);
    }
    researchCases(ctx, set);
    if (ctx.supports.browser) browserCases(ctx);
    else
      console.log(
        `[conformance] ${set.name}: render: browser cases NOT RUN — the set does not declare supports.browser ` +
          "(Chromium at GLEANER_BROWSER_PATH).",
      );
  });
};
