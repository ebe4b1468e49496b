import { type LayerOverrides, type RunningHost, startHost } from "@gleaner/koa";
import { allowMs, after, before, describe } from "./runner.js";
import { pino } from "pino";
import { authCapability } from "./cases/auth.js";
import { bolaCapability } from "./cases/bola.js";
import { diagnosticsCapability } from "./cases/diagnostics.js";
import { boundsCapability } from "./cases/bounds.js";
import { driftCapability } from "./cases/drift.js";
import { pageIdentityCapability } from "./cases/page-identity.js";
import { edgesCapability } from "./cases/edges.js";
import { exportsCapability } from "./cases/exports.js";
import { webhooksCapability } from "./cases/webhooks.js";
import { fuzzCapability } from "./cases/fuzz.js";
import { liveTraceCapability } from "./cases/live-trace.js";
import { researchRequestsCapability } from "./cases/research-requests.js";
import { researchDeclaredPagesCapability } from "./cases/research-declared-pages.js";
import { researchSearchCapability } from "./cases/research-search.js";
import { researchFailuresCapability } from "./cases/research-failures.js";
import { researchLongPagesCapability } from "./cases/research-long-pages.js";
import { deleteDatasetCapability } from "./cases/delete-dataset.js";
import { keysCapability } from "./cases/keys.js";
import { retentionCapability } from "./cases/retention.js";
import { researchWebCapability } from "./cases/research-web.js";
import { researchShapesCapability } from "./cases/research-shapes.js";
import { reuseCapability } from "./cases/reuse.js";
import { browserCapability } from "./cases/browser.js";
import { changesCapability } from "./cases/changes.js";
import { createDatasetCapability } from "./cases/create-dataset.js";
import { listDatasetsCapability } from "./cases/list-datasets.js";
import { rowEditsCapability } from "./cases/row-edits.js";
import { rowsCapability } from "./cases/rows.js";
import { runsCapability } from "./cases/runs.js";
import { schedulesCapability } from "./cases/schedules.js";
import { sourcesCapability } from "./cases/sources.js";
import { updateDatasetCapability } from "./cases/update-dataset.js";
import { usageCapability } from "./cases/usage.js";
import {
  type AdapterSet,
  type Capability,
  type HostSetup,
  makeOwnerFactory,
  missingRequirement,
  type SuiteContext,
} from "./context.js";
import { makeClient } from "./client.js";

export type { AdapterSet } from "./context.js";

/** Every capability, one per area of SPEC.md, in the order the suite registers them. */
export const capabilities = {
  auth: authCapability,
  createDataset: createDatasetCapability,
  sources: sourcesCapability,
  listDatasets: listDatasetsCapability,
  updateDataset: updateDatasetCapability,
  deleteDataset: deleteDatasetCapability,
  usage: usageCapability,
  keys: keysCapability,
  runs: runsCapability,
  reuse: reuseCapability,
  drift: driftCapability,
  pageIdentity: pageIdentityCapability,
  rows: rowsCapability,
  rowEdits: rowEditsCapability,
  changes: changesCapability,
  exports: exportsCapability,
  webhooks: webhooksCapability,
  schedules: schedulesCapability,
  retention: retentionCapability,
  edges: edgesCapability,
  bounds: boundsCapability,
  liveTrace: liveTraceCapability,
  bola: bolaCapability,
  fuzz: fuzzCapability,
  diagnostics: diagnosticsCapability,
  researchRequests: researchRequestsCapability,
  researchDeclaredPages: researchDeclaredPagesCapability,
  researchSearch: researchSearchCapability,
  researchFailures: researchFailuresCapability,
  researchLongPages: researchLongPagesCapability,
  researchWeb: researchWebCapability,
  researchShapes: researchShapesCapability,
  browser: browserCapability,
} as const satisfies Record<string, Capability>;

/**
 * Registers the conformance suite for one adapter set: every capability, or the ones given.
 * Adopt it in three lines:
 *
 *   import { suite } from "@gleaner/conformance";
 *   import { MyStoreLive } from "my-adapter";
 *   suite({ name: "my-adapter", layer: () => MyStoreLive });
 *
 * A capability whose requirement the set does not declare is left out with its reason printed.
 */
export const suite = (set: AdapterSet, only: ReadonlyArray<Capability> = Object.values(capabilities)): void => {
  describe(`Gleaner conformance: ${set.name}`, function () {
    allowMs(this, 60_000);
    let running: RunningHost | undefined;
    let virtual: Promise<RunningHost> | undefined;
    // Filled in by the capabilities' HostSetups before the main host starts.
    const setups: HostSetup[] = [];
    let extra: Pick<LayerOverrides, "model" | "search"> = {};
    const start = (virtualClock: boolean) =>
      startHost({
        overrides: {
          ...extra,
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
          // Webhook retries within a test's time: 50 ms doubling; pending messages looked for every 250 ms.
          webhooks: { timeoutMs: 2_000, pollMs: 250, retryBaseMs: 50 },
          ...set.config,
        },
        logger: pino({ level: "silent" }),
      });
    const host = (): RunningHost => {
      if (!running) throw new Error("The host is not running: the suite's before hook failed.");
      return running;
    };
    before(async () => {
      for (const setup of setups) extra = { ...extra, ...(await setup.start()) };
      running = await start(false);
    });
    after(async () => {
      await running?.close();
      await (await virtual)?.close();
      for (const setup of setups) await setup.close();
    });
    const ctx: SuiteContext = {
      host,
      owner: makeOwnerFactory(host),
      anonymous: () => makeClient(host().url, null),
      supports: set.supports ?? {},
      virtualHost: () => (virtual ??= start(true)),
      onMainHost: (setup) => setups.push(setup),
    };
    for (const capability of only) {
      const missing = missingRequirement(capability, ctx.supports);
      if (missing) console.log(`[conformance] ${set.name}: ${capability.name} cases NOT RUN — ${missing.why}.`);
      else capability.register(ctx, set);
    }
  });
};
