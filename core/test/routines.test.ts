import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import * as Scope from "effect/Scope";
import * as TestClock from "effect/TestClock";
import * as TestContext from "effect/TestContext";
import {
  CreateDatasetRequest,
  createApiKey,
  createDataset,
  type DatasetId,
  decodeBody,
  RoutinesLive,
  Storage,
  updateDataset,
} from "../src/index.js";

const minute = 60_000;
const body = (name: string) => ({
  name,
  columns: [{ name: "title", type: "string", key: true }],
  source: {
    version: 1,
    url: "https://books.example/",
    itemSelector: "article",
    fields: [{ name: "title", read: { selector: "h3" } }],
    identity: { kind: "source-key", field: "title" },
    pagination: { kind: "none" },
  },
});

/**
 * Routines without a worker: runs stay queued, so each test sees exactly the runs the ticks made.
 * The store outlives the "process" (the routines layer), which is what a restart looks like.
 */
describe("routines", () => {
  const start = Date.parse("2026-11-21T10:00:00Z");
  const store = Layer.merge(MemoryStoreLive, MemoryRunQueueLive());
  const clock = Layer.effectDiscard(TestClock.setTime(start)).pipe(Layer.provideMerge(TestContext.TestContext));

  it("resumes after a restart at the next occurrence, without a burst of missed ticks", async () => {
    const runtime = ManagedRuntime.make(Layer.provideMerge(store, clock));
    const run = <A, E>(effect: Effect.Effect<A, E, any>) => runtime.runPromise(effect as Effect.Effect<A, E, never>);
    const { owner } = await run(createApiKey("acme", 100));
    const dataset = await run(
      Effect.flatMap(decodeBody(CreateDatasetRequest, body("hourly")), (request) => createDataset(owner.id, request)),
    );
    await run(updateDataset(owner.id, dataset.id, { schedule: "*/5 * * * *", status: "active" }));

    // The host is down for an hour: no routines layer runs.
    await run(TestClock.adjust(60 * minute));
    const runsWhileDown = await run(Effect.flatMap(Storage, (s) => s.listRuns(dataset.id as DatasetId, 100)));
    expect(runsWhileDown).to.have.length(0);

    // Restart: the routines layer re-reads active routines from storage.
    const scope = await run(Scope.make());
    await run(Layer.buildWithScope(RoutinesLive, scope));
    await run(TestClock.adjust(4 * minute));
    expect(await run(Effect.flatMap(Storage, (s) => s.listRuns(dataset.id as DatasetId, 100)))).to.have.length(0);
    await run(TestClock.adjust(1 * minute));
    const runs = await run(Effect.flatMap(Storage, (s) => s.listRuns(dataset.id as DatasetId, 100)));
    expect(runs).to.have.length(1);
    expect(runs[0]?.trigger).to.equal("schedule");
    expect(runs[0]?.queuedAt).to.equal(new Date(start + 65 * minute).toISOString());
    await runtime.dispose();
  });

  it("completes a routine whose recipe can no longer be navigated", async () => {
    const runtime = ManagedRuntime.make(Layer.provideMerge(store, clock));
    const run = <A, E>(effect: Effect.Effect<A, E, any>) => runtime.runPromise(effect as Effect.Effect<A, E, never>);
    const { owner } = await run(createApiKey("legacy", 100));
    const dataset = await run(
      Effect.flatMap(decodeBody(CreateDatasetRequest, body("legacy")), (request) => createDataset(owner.id, request)),
    );
    await run(updateDataset(owner.id, dataset.id, { schedule: "*/5 * * * *", status: "active" }));
    // A legacy recipe (array-based, version 0) as an older release would have stored it.
    await run(
      Effect.gen(function* () {
        const storage = yield* Storage;
        const stored = Option.getOrThrow(yield* storage.getDataset(owner.id, dataset.id as DatasetId));
        const [recipe] = stored.record.recipes;
        yield* storage.updateDataset({
          ...stored.record,
          recipes: [{ ...recipe!, source: { ...recipe!.source, version: 0 } }],
          revision: stored.record.revision + 1,
        });
      }),
    );
    const scope = await run(Scope.make());
    await run(Layer.buildWithScope(RoutinesLive, scope));
    await run(TestClock.adjust(5 * minute));
    const after = await run(Effect.flatMap(Storage, (s) => s.getDataset(owner.id, dataset.id as DatasetId)));
    const state = Option.getOrThrow(after).record;
    expect(state.scheduleState?.status).to.equal("completed");
    expect(state.scheduleState?.reason).to.contain("cannot be navigated");
    expect(state.schedule).to.equal(null);
    expect(await run(Effect.flatMap(Storage, (s) => s.listRuns(dataset.id as DatasetId, 10)))).to.have.length(0);
    await runtime.dispose();
  });
});
