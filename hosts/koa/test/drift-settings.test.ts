import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";
import { ConfigurationError, readConfig, type RunningHost, startHost } from "@gleaner/koa";
import { type PricedList, startPricedList } from "./support/priced-list.js";

// The drift rule as a host operator sets it (GLEANER_DRIFT*, docs/guides/held-runs.md): read from the
// environment, refused when malformed, and obeyed by the worker.

describe("drift settings (GLEANER_DRIFT*)", function () {
  this.timeout(30_000);
  let list: PricedList;
  before(async () => {
    list = await startPricedList(20);
  });
  after(() => list.close());

  /** A host configured from `env`, a dataset accepted with every price, then a run where only `priced` keep theirs. */
  const secondRun = async (env: Record<string, string>, priced: number): Promise<string> => {
    const host: RunningHost = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { ...readConfig(env), port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1/32"] },
      logger: pino({ level: "silent" }),
    });
    try {
      const key = await host.createKey("operator", 10);
      const call = async (path: string, body?: unknown) =>
        (
          await fetch(`${host.url}${path}`, {
            method: body === undefined ? "GET" : "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          })
        ).json();
      const until = async (runId: string) => {
        for (;;) {
          const { run } = await call(`/v1/runs/${runId}`);
          if (run.status !== "queued" && run.status !== "running") return run.status as string;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const { dataset } = await call("/v1/datasets", list.dataset());
      list.setPriced(20);
      expect(await until((await call(`/v1/datasets/${dataset.id}/runs`, {})).runId)).to.equal("succeeded");
      list.setPriced(priced);
      return await until((await call(`/v1/datasets/${dataset.id}/runs`, {})).runId);
    } finally {
      await host.close();
    }
  };
  it("holds by default, and not when GLEANER_DRIFT=off", async () => {
    expect(await secondRun({}, 0)).to.equal("held");
    expect(await secondRun({ GLEANER_DRIFT: "off" }, 0)).to.equal("succeeded");
  });

  it("takes its thresholds from the environment: a 60-point fall holds at 50 points, not at 70", async () => {
    expect(await secondRun({}, 8)).to.equal("held");
    expect(await secondRun({ GLEANER_DRIFT_FILL_DROP_POINTS: "70" }, 8)).to.equal("succeeded");
    expect(await secondRun({ GLEANER_DRIFT_MIN_ROWS: "21" }, 0)).to.equal("succeeded");
  });

  it("refuses a malformed setting, naming the variable", () => {
    for (const env of [
      { GLEANER_DRIFT: "maybe" },
      { GLEANER_DRIFT_GONE_PERCENT: "0" },
      { GLEANER_DRIFT_MIN_ROWS: "x" },
    ]) {
      expect(() => readConfig(env), JSON.stringify(env))
        .to.throw(ConfigurationError)
        .with.property("message")
        .that.contains(Object.keys(env)[0]);
    }
  });
});
