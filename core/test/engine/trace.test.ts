import { expect } from "chai";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as TestClock from "effect/TestClock";
import * as TestContext from "effect/TestContext";
import { describe, it } from "mocha";
import { publishEveryMs, TraceRecorder, type TraceSnapshot } from "../../src/engine/trace.js";

/** Runs `steps` against a recorder on a test clock; returns what it published, in order. */
const published = (steps: (recorder: TraceRecorder) => Effect.Effect<void>) => {
  const snapshots: TraceSnapshot[] = [];
  const recorder = new TraceRecorder("attempt", (snapshot) => Effect.sync(() => void snapshots.push(snapshot)));
  return Effect.runPromise(steps(recorder).pipe(Effect.provide(TestContext.TestContext))).then(() => snapshots);
};
const wait = (ms: number) => TestClock.adjust(Duration.millis(ms));
const step = (recorder: TraceRecorder, phase: "read" | "extract", ms: number) => recorder.timed(phase, wait(ms));

describe("run trace progress", () => {
  it("publishes nothing for a run that ends within its first interval, phase changes included", async () => {
    const snapshots = await published((recorder) =>
      Effect.gen(function* () {
        yield* step(recorder, "read", 40);
        yield* step(recorder, "extract", 40);
        yield* step(recorder, "read", publishEveryMs - 100);
      }),
    );
    expect(snapshots).to.deep.equal([]);
  });

  it("publishes a longer run's steps so far once its first interval is over, and each phase change after it", async () => {
    const snapshots = await published((recorder) =>
      Effect.gen(function* () {
        yield* step(recorder, "read", publishEveryMs + 10);
        yield* step(recorder, "read", 10);
        yield* step(recorder, "extract", 10);
      }),
    );
    expect(snapshots.map((s) => s.steps.filter((step) => step.status === "succeeded").length)).to.deep.equal([1, 2]);
    expect(snapshots[1]!.steps.at(-1)).to.include({ phase: "extract", status: "running" });
  });
});
