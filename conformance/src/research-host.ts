import { type LayerOverrides, type RunningHost, startHost } from "@gleaner/koa";
import { pino } from "pino";
import { expect } from "chai";
import type { Body } from "./bodies.js";
import { waitForRun } from "./books.js";
import { makeClient } from "./client.js";
import type { AdapterSet, Owner } from "./context.js";

/**
 * A host for research cases on the set's store and on a queue of its own name (`set.queue(name)`:
 * hosts consuming one shared durable queue would take each other's jobs), with the research
 * adapters the case gives. Silent unless the case passes a logger.
 */
export const startResearchHost = (
  set: AdapterSet,
  queue: string,
  research: Pick<LayerOverrides, "model" | "search" | "contextTokens">,
  logger = pino({ level: "silent" }),
): Promise<RunningHost> =>
  startHost({
    overrides: {
      store: set.layer(),
      ...(set.queue ? { queue: set.queue(queue) } : {}),
      ...(set.parser ? { parser: set.parser() } : {}),
      ...research,
    },
    config: {
      port: 0,
      host: "127.0.0.1",
      logLevel: logger.level === "silent" ? "silent" : "info",
      allowPrivateTargets: ["127.0.0.1/32"],
      ...set.config,
    },
    logger,
  });

/**
 * A new owner with `credits` on `host` creates `dataset` and runs research on it, waiting for the run
 * to end: what a research case over a fixture web starts from.
 */
export const ownerResearches = async (host: RunningHost, dataset: Body, credits: number) => {
  const name = `owner-${globalThis.crypto.randomUUID()}`;
  const owner: Owner = { name, key: "", ...makeClient(host.url, await host.createKey(name, credits)) };
  const created = await owner.post("/v1/datasets", dataset);
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  const started = await owner.post(`/v1/datasets/${created.body.dataset.id}/runs`, { kind: "research" });
  expect(started.status, JSON.stringify(started.body)).to.equal(202);
  return { owner, dataset: created.body.dataset as Body, run: await waitForRun(owner, started.body.runId) };
};
