import { aDataset, aQueuedRun, evidenceOf } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { ConfigurationError, readConfig, startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import { pino } from "pino";

const dayMs = 24 * 60 * 60 * 1000;

// GLEANER_RETENTION_DAYS as an operator sets it: read from the environment, refused when malformed,
// and the days a run's record is kept, as its diagnostics then say.
describe("retention setting (GLEANER_RETENTION_DAYS)", () => {
  it("is 30 days unless set, and refuses a value that is not a whole number of days from 1, naming it", () => {
    expect(readConfig({}).retentionDays).to.equal(30);
    expect(readConfig({ GLEANER_RETENTION_DAYS: "7" }).retentionDays).to.equal(7);
    for (const bad of ["0", "seven", "1.5", "-3"]) {
      expect(() => readConfig({ GLEANER_RETENTION_DAYS: bad }), bad)
        .to.throw(ConfigurationError)
        .with.property("message")
        .that.matches(/GLEANER_RETENTION_DAYS/);
    }
  });

  it("keeps a run's record the days it says: a run finished 8 days ago is past 7 days, and its diagnostics say so", async () => {
    const store = Effect.runSync(Effect.scoped(Layer.build(MemoryStoreLive)));
    const storage = Context.get(store, Storage);
    const host = await startHost({
      overrides: { store: Layer.succeedContext(store) },
      config: { ...readConfig({ GLEANER_RETENTION_DAYS: "7" }), port: 0, host: "127.0.0.1" },
      logger: pino({ level: "silent" }),
    });
    try {
      const key = await host.createKey("retention-operator", 5);
      const owner = Option.getOrThrow(await Effect.runPromise(storage.findOwnerByName("retention-operator")));
      const dataset = aDataset(owner.id);
      await Effect.runPromise(storage.insertDataset(dataset));
      const runOf = async (finishedDaysAgo: number) => {
        const queued = aQueuedRun(dataset, 0);
        await Effect.runPromise(storage.insertRun(queued));
        const { run } = Option.getOrThrow(await Effect.runPromise(storage.claimRun(queued.id, queued.queuedAt, false)));
        const completedAt = new Date(Date.now() - finishedDaysAgo * dayMs).toISOString();
        await Effect.runPromise(
          storage.finishRun({ ...run, status: "failed", error: "x", completedAt }, evidenceOf(run)),
        );
        return run.id;
      };
      const unknowns = async (runId: string) => {
        const answer = await fetch(`${host.url}/v1/runs/${runId}/diagnostics`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(answer.status).to.equal(200);
        return ((await answer.json()) as { diagnostics: { unknowns: string[] } }).diagnostics.unknowns;
      };
      const removed = /was removed 7 days after it finished \(GLEANER_RETENTION_DAYS\)/;
      expect((await unknowns(await runOf(8))).some((u) => removed.test(u))).to.equal(true);
      expect((await unknowns(await runOf(6))).some((u) => /was removed/.test(u))).to.equal(false);
    } finally {
      await host.close();
    }
  });
});
