import { QueueUnavailable, RunQueue, type RunQueueService } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as Layer from "effect/Layer";
import { queueNamingVariable } from "../src/plugins.js";

describe("a queue that refuses a job", () => {
  it("names the variable of the queue's database beside the cause", async () => {
    // A queue whose database refuses the insert, as Agenda's does when PostgreSQL is unreachable.
    const refusing = Layer.succeed(RunQueue, {
      enqueue: () =>
        Effect.fail(new QueueUnavailable({ message: "The run queue cannot take the run now (ECONNREFUSED)" })),
    } as unknown as RunQueueService);
    const result = await Effect.runPromise(
      Effect.either(
        Effect.flatMap(RunQueue, (queue) =>
          queue.enqueue({
            runId: globalThis.crypto.randomUUID() as never,
            datasetId: globalThis.crypto.randomUUID() as never,
          }),
        ),
      ).pipe(Effect.provide(queueNamingVariable("GLEANER_POSTGRES_URL", refusing))),
    );
    expect(Either.isLeft(result)).to.equal(true);
    const error = Either.getLeft(result).pipe((o) => (o._tag === "Some" ? o.value : null));
    expect(error?.message).to.equal(
      "The run queue cannot take the run now (ECONNREFUSED) (the queue's database: GLEANER_POSTGRES_URL)",
    );
    expect(error?.code).to.equal("queue_unavailable");
  });
});
