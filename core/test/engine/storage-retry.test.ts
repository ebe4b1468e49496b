import { Htmlparser2ParserLive } from "@gleaner/htmlparser2";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import {
  CreateDatasetRequest,
  createApiKey,
  createDataset,
  decodeBody,
  Credits,
  createRun,
  deliverRun,
  Fetcher,
  type OwnerId,
  type RunId,
  Storage,
} from "../../src/index.js";
import { fetchedPage } from "./fetched-page.js";

const url = "https://shop.example/p1";
const html = `<html><body><article><a href="/b/1">Book 1</a></article><article><a href="/b/2">Book 2</a></article></body></html>`;
const body = {
  name: "shop",
  columns: [{ name: "link", type: "string", key: true }],
  source: {
    version: 1,
    url,
    itemSelector: "article",
    fields: [{ name: "link", read: { selector: "a", kind: "attribute", attribute: "href" } }],
    identity: { kind: "source-key", field: "link" },
    pagination: { kind: "none" },
  },
};

const fetcher = Layer.succeed(Fetcher, {
  read: (request) => Effect.succeed(fetchedPage(request.url, html)),
});

/**
 * A dropped database connection during acceptance: the worker delivers the run again once the
 * database answers, and the run ends accepted, charged once. The failure is built by a second copy
 * of core's errors module, as a process gets when a host loaded through `require` imports its
 * adapters dynamically: it must still read as "the database is away", not as a fault that fails
 * the run (or, worse, leaves it `running` with no one working on it).
 */
describe("a dropped database connection during a run", function () {
  this.timeout(20_000);

  it("is retried by the worker, even when the failure comes from another copy of core", async () => {
    const copy = await import(`../../src/errors.ts?second-copy=${Date.now()}`);
    expect(copy.StorageFailure, "a distinct copy of the class").to.not.equal(
      (await import("../../src/errors.js")).StorageFailure,
    );
    let failuresLeft = 1;
    const flaky = Layer.effect(
      Storage,
      Effect.map(Storage, (store) => ({
        ...store,
        acceptRun: (acceptance: Parameters<typeof store.acceptRun>[0]) =>
          failuresLeft-- > 0
            ? Effect.fail(new copy.StorageFailure({ message: "Connection terminated unexpectedly", unavailable: true }))
            : store.acceptRun(acceptance),
      })),
    ).pipe(Layer.provideMerge(MemoryStoreLive));
    const runtime = ManagedRuntime.make(Layer.mergeAll(flaky, MemoryRunQueueLive(), Htmlparser2ParserLive, fetcher));
    const run = <A, E>(effect: Effect.Effect<A, E, any>) => runtime.runPromise(effect as Effect.Effect<A, E, never>);
    try {
      const { owner } = await run(createApiKey(`owner-${globalThis.crypto.randomUUID()}`, 10));
      const dataset = await run(
        Effect.flatMap(decodeBody(CreateDatasetRequest, body), (request) => createDataset(owner.id, request)),
      );
      const { runId } = await run(createRun(owner.id, dataset.id));
      await run(deliverRun({ runId: runId as RunId, datasetId: dataset.id as never }, false, 10_000));
      const stored = Option.getOrThrow(await run(Effect.flatMap(Storage, (s) => s.getRun(owner.id as OwnerId, runId))));
      expect(failuresLeft, "the first acceptance failed").to.equal(-1);
      expect(stored.status).to.equal("succeeded");
      expect(stored.rowDeltas).to.deep.equal({ new: 2, changed: 0, gone: 0 });
      const ledger = await run(Effect.flatMap(Credits, (c) => c.ledger(owner.id as OwnerId, "2000-01-01T00:00:00Z")));
      expect(ledger.filter((e: { kind: string }) => e.kind === "charge")).to.have.length(1);
    } finally {
      await runtime.dispose();
    }
  });
});
