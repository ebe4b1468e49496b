import { type DatasetId, type OwnerId, RunQueue, type RunId, type RunJob } from "@gleaner/core";
import { expect } from "chai";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { MemoryRunQueueLive } from "../src/index.js";

const job = (owner: string, n: number): RunJob => ({
  runId: `${owner}-${n}` as RunId,
  datasetId: `${owner}-dataset-${n}` as DatasetId,
  ownerId: owner as OwnerId,
});

/** Enqueues `jobs` before a single consumer starts, and returns the order it handled them in. */
const handledOrder = (jobs: ReadonlyArray<RunJob>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const queue = yield* RunQueue;
        for (const j of jobs) yield* queue.enqueue(j);
        const order: string[] = [];
        const done = yield* Deferred.make<void>();
        yield* queue.consume(1, (j) =>
          Effect.suspend(() => {
            order.push(j.runId);
            return order.length === jobs.length ? Deferred.succeed(done, undefined) : Effect.void;
          }),
        );
        yield* Deferred.await(done);
        return order;
      }),
    ).pipe(Effect.provide(Layer.fresh(MemoryRunQueueLive()))),
  );

describe("memory run queue: fair across owners", () => {
  it("serves owners in turn: one owner's 20 queued runs do not hold back another owner's run", async () => {
    const burst = Array.from({ length: 20 }, (_, n) => job("a", n));
    const order = await handledOrder([...burst, job("b", 0)]);
    expect(order).to.have.length(21);
    expect(order.indexOf("b-0"), order.join(" ")).to.equal(1);
    // Each owner's own runs keep their order.
    expect(order.filter((id) => id.startsWith("a-"))).to.deep.equal(burst.map((j) => j.runId));
  });

  it("alternates between owners with backlogs, and refuses jobs beyond its capacity", async () => {
    const order = await handledOrder([job("a", 0), job("a", 1), job("a", 2), job("b", 0), job("b", 1)]);
    expect(order).to.deep.equal(["a-0", "b-0", "a-1", "b-1", "a-2"]);
    const refused = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const queue = yield* RunQueue;
          yield* queue.enqueue(job("a", 0));
          return yield* Effect.either(queue.enqueue(job("b", 0)));
        }),
      ).pipe(Effect.provide(Layer.fresh(MemoryRunQueueLive({ capacity: 1 })))),
    );
    expect(refused._tag === "Left" && refused.left._tag).to.equal("QueueUnavailable");
  });
});
