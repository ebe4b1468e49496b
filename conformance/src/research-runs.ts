import { expect } from "chai";
import type { Body } from "./bodies.js";
import { waitForRun } from "./books.js";
import type { Client } from "./client.js";
import { ownerOn } from "./context.js";
import type { RunningHost } from "@gleaner/koa";

/** Creates a dataset, failing the case unless it is created. */
export const createDataset = async (owner: Client, body: Body): Promise<Body> => {
  const answer = await owner.post("/v1/datasets", body);
  expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
  return answer.body.dataset;
};

/** Starts a research run (docs/decisions/0014-research-runs.md) and waits for it to finish; returns the finished run. */
export const researchToEnd = async (owner: Client, datasetId: string): Promise<Body> => {
  const started = await owner.post(`/v1/datasets/${datasetId}/runs`, { kind: "research" });
  expect(started.status, JSON.stringify(started.body)).to.equal(202);
  return waitForRun(owner, started.body.runId);
};

/** The dataset's first page of rows. */
export const rowsOf = async (owner: Client, datasetId: string): Promise<Body[]> =>
  (await owner.get(`/v1/datasets/${datasetId}/rows`)).body.data as Body[];

/** The row whose entity goes by `anchor`. */
export const byAnchor = (list: Body[], anchor: string): Body | undefined =>
  list.find((r) => r.identity?.anchor === anchor);

/** A diagnostics answer without its basis (recorded or replay), so the two can be compared. */
export const withoutBasis = (diagnostics: Body): Body => ({
  ...diagnostics,
  basis: undefined,
  summary: { ...diagnostics.summary, basis: undefined },
});

/**
 * A new owner with `credits` on `host` creates `dataset` and runs research on it, waiting for the run
 * to end: what a research case over a fixture web starts from.
 */
export const ownerResearches = async (host: RunningHost, dataset: Body, credits: number) => {
  const owner = await ownerOn(host, credits);
  const created = await createDataset(owner, dataset);
  return { owner, dataset: created, run: await researchToEnd(owner, created.id) };
};
