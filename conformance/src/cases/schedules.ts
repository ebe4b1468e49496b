import type { RunningHost } from "@gleaner/koa";
import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import type { Body } from "../bodies.js";
import { booksDataset, waitForRun } from "../books.js";
import { makeClient } from "../client.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import { type BooksSite, startBooksSite } from "../sites/index.js";

const minute = 60_000;

/** Schedules, in virtual time: the host's clock moves only when a case advances it. */
export const scheduleCases = (ctx: SuiteContext): void => {
  describe("schedules and dataset lifecycle (virtual time)", () => {
    let host: RunningHost;
    let site: BooksSite;
    before(async () => {
      host = await ctx.virtualHost();
      site = await startBooksSite();
    });
    const created: Array<{ owner: Owner; id: string }> = [];
    // Cancel every routine and let runs in flight finish before the site goes away: a run whose
    // site vanished would retry on the virtual clock, which nobody advances any more.
    after(async () => {
      for (const { owner: o, id } of created) {
        await o.patch(`/v1/datasets/${id}`, { schedule: null });
        for (const run of await runs(o, id)) await waitForRun(o, run.id);
      }
      await site.close();
    });

    const owner = async (credits = 500): Promise<Owner> => {
      const name = `owner-${globalThis.crypto.randomUUID()}`;
      const key = await host.createKey(name, credits);
      return { name, key, ...makeClient(host.url, key) };
    };
    const dataset = async (o: Owner): Promise<Body> => {
      const answer = await o.post(
        "/v1/datasets",
        booksDataset(site, "next-link", (b) => void (b.source.maxPages = 50)),
      );
      expect(answer.status).to.equal(201);
      created.push({ owner: o, id: answer.body.dataset.id });
      return answer.body.dataset;
    };
    const patch = async (o: Owner, id: string, body: Body) => {
      const answer = await o.patch(`/v1/datasets/${id}`, body);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      return answer.body.dataset;
    };
    const runs = async (o: Owner, id: string) => (await o.get(`/v1/datasets/${id}/runs`)).body.data as Body[];
    /** Advances virtual time, then lets the real I/O the tick started (HTTP, the run) settle. */
    const advance = async (ms: number) => {
      await host.advanceClock(ms);
      await new Promise((resolve) => setTimeout(resolve, 50));
    };

    for (const [cron, problem] of [
      ["*/5 * * * * *", "five fields"],
      ["*/5 * * *  ", "five fields"],
      ["61 * * * *", "valid cron"],
      ["0 0 * * mon-xyz", "valid cron"],
    ] as const) {
      it(`refuses the schedule ${JSON.stringify(cron)} with 422 naming /schedule`, async () => {
        const o = await owner();
        const d = await dataset(o);
        const answer = await o.patch(`/v1/datasets/${d.id}`, { schedule: cron });
        expect(answer.status).to.equal(422);
        expect(answer.body.error.details[0].path).to.equal("/schedule");
        expect(answer.body.error.details[0].message).to.contain(problem);
      });
    }

    it("keeps a draft's schedule paused with its reason, runs it once active, on every tick", async () => {
      const o = await owner();
      const d = await dataset(o);
      const drafted = await patch(o, d.id, { schedule: "*/10 * * * *" });
      expect(drafted.schedule).to.equal(null);
      expect(drafted.scheduleState).to.deep.include({ cron: "*/10 * * * *", status: "paused" });
      expect(drafted.scheduleState.reason).to.contain("draft");
      await advance(10 * minute);
      expect(await runs(o, d.id)).to.have.length(0);

      const active = await patch(o, d.id, { status: "active" });
      expect(active.schedule).to.equal("*/10 * * * *");
      expect(active.scheduleState).to.deep.equal({ cron: "*/10 * * * *", status: "active", reason: null });
      await advance(10 * minute);
      const [first] = await runs(o, d.id);
      expect(first, "a scheduled run").to.not.equal(undefined);
      const done = await waitForRun(o, first!.id);
      expect(done.status).to.equal("succeeded");
      expect((await o.get("/v1/usage")).body.balance).to.equal(450);
      await advance(10 * minute);
      expect(await runs(o, d.id)).to.have.length(2);
      await waitForRun(o, (await runs(o, d.id))[0]!.id);
    });

    it("pauses: schedule null, state paused with a reason, no ticks; resumes on active; manual runs work throughout", async () => {
      const o = await owner();
      const d = await dataset(o);
      await patch(o, d.id, { schedule: "0 * * * *", status: "active" });
      const paused = await patch(o, d.id, { status: "paused" });
      expect(paused.schedule).to.equal(null);
      expect(paused.scheduleState.status).to.equal("paused");
      expect(paused.scheduleState.reason).to.contain("paused");
      await advance(60 * minute);
      expect(await runs(o, d.id)).to.have.length(0);
      const manual = await o.post(`/v1/datasets/${d.id}/runs`);
      expect(manual.status).to.equal(202);
      expect((await waitForRun(o, manual.body.runId)).status).to.equal("succeeded");
      const resumed = await patch(o, d.id, { status: "active" });
      expect(resumed.scheduleState).to.deep.equal({ cron: "0 * * * *", status: "active", reason: null });
      await advance(60 * minute);
      expect(await runs(o, d.id)).to.have.length(2);
      await waitForRun(o, (await runs(o, d.id))[0]!.id);
    });

    it("a held scheduled run (drift) leaves the schedule active; the next tick runs again and holds again", async () => {
      const o = await owner();
      const answer = await o.post(
        "/v1/datasets",
        booksDataset(site, "next-link", (b) => {
          b.source.maxPages = 50;
          delete b.source.fields.find((f: Body) => f.name === "price").required;
        }),
      );
      expect(answer.status).to.equal(201);
      const d = answer.body.dataset;
      created.push({ owner: o, id: d.id });
      const manual = await o.post(`/v1/datasets/${d.id}/runs`);
      expect((await waitForRun(o, manual.body.runId)).status).to.equal("succeeded");
      await patch(o, d.id, { schedule: "*/10 * * * *", status: "active" });
      site.driftSelectors(true);
      try {
        await advance(10 * minute);
        const held = await waitForRun(o, (await runs(o, d.id))[0]!.id);
        expect(held.status, JSON.stringify(held)).to.equal("held");
        const shown = (await o.get(`/v1/datasets/${d.id}`)).body.dataset;
        expect(shown.scheduleState).to.deep.equal({ cron: "*/10 * * * *", status: "active", reason: null });
        expect(shown.schedule).to.equal("*/10 * * * *");
        await advance(10 * minute);
        const listed = await runs(o, d.id);
        expect(listed).to.have.length(3);
        expect((await waitForRun(o, listed[0]!.id)).status).to.equal("held");
      } finally {
        site.driftSelectors(false);
      }
    });

    it("clearing the schedule cancels the routine: scheduleState null, no more ticks", async () => {
      const o = await owner();
      const d = await dataset(o);
      await patch(o, d.id, { schedule: "*/15 * * * *", status: "active" });
      const cleared = await patch(o, d.id, { schedule: null });
      expect(cleared.schedule).to.equal(null);
      expect(cleared.scheduleState).to.equal(null);
      expect(cleared.status).to.equal("active");
      await advance(30 * minute);
      expect(await runs(o, d.id)).to.have.length(0);
    });

    it("skips a tick while a run is in progress, and records why; the routine stays active", async () => {
      const o = await owner();
      const d = await dataset(o);
      site.setDelay(30);
      const manual = await o.post(`/v1/datasets/${d.id}/runs`);
      expect(manual.status).to.equal(202);
      await patch(o, d.id, { schedule: "* * * * *", status: "active" });
      await advance(minute);
      const during = (await o.get(`/v1/datasets/${d.id}`)).body.dataset;
      expect(during.scheduleState.status).to.equal("active");
      expect(during.scheduleState.reason).to.contain("skipped").and.contain("queued or running");
      expect(await runs(o, d.id)).to.have.length(1);
      await waitForRun(o, manual.body.runId);
      site.setDelay(0);
      await patch(o, d.id, { schedule: null });
    });

    it("skips a tick the owner cannot pay for, with that reason, and stays active", async () => {
      const o = await owner(0);
      const d = await dataset(o);
      await patch(o, d.id, { schedule: "*/5 * * * *", status: "active" });
      await advance(5 * minute);
      const after = (await o.get(`/v1/datasets/${d.id}`)).body.dataset;
      expect(after.scheduleState.status).to.equal("active");
      expect(after.scheduleState.reason).to.contain("credits");
      expect(after.schedule).to.equal("*/5 * * * *");
      expect(await runs(o, d.id)).to.have.length(0);
    });
  });
};

export const schedulesCapability: Capability = {
  name: "schedules",
  requires: [
    {
      flag: "virtualTime",
      byDefault: true,
      why: "schedule cases advance a virtual clock (TestClock) and this set's scheduler fires on real time (supports.virtualTime: false); its adapter tests cover routines",
    },
  ],
  register: scheduleCases,
};
