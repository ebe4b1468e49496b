import { makeClient, startWebhookReceiver, type WebhookReceiver } from "@gleaner/conformance";
import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import { sql, whenPostgresReachable } from "./support.js";
import {
  type CrashScene,
  createCrashDatasets,
  driveRuns,
  progressWatch,
  sleep,
  startCrashScene,
} from "./worker-fleet.js";

/**
 * Webhook deliveries survive workers killed with SIGKILL between a run's acceptance and its
 * delivery (or during it). The outbox is written with the run's outcome; a restarted worker's poll
 * and expired leases pick up what the dead one left. Afterwards every accepted, failed or blocked run's run.finished (and
 * every rows.changed) reached the receiver at least once, always under one webhook-id.
 */
const workers = 3;
const targetKills = 10;
const datasets = 4;

await whenPostgresReachable("webhooks crash test: gleaner workers killed with SIGKILL", (baseUrl) => {
  describe("webhooks crash test: postgres + agenda(postgres) workers killed between acceptance and delivery", function () {
    this.timeout(0);
    let scene: CrashScene;
    let receiver: WebhookReceiver;
    const { waitTerminal, restart } = progressWatch();

    before(async () => {
      receiver = await startWebhookReceiver();
      scene = await startCrashScene(baseUrl, workers, {
        GLEANER_AGENDA_LOCK_LIFETIME_MS: "3000",
        // A taken message is reserved for 2 × timeout + 5 s; then another worker sends it again.
        GLEANER_WEBHOOK_TIMEOUT_MS: "1000",
        GLEANER_WEBHOOK_POLL_MS: "500",
        GLEANER_WEBHOOK_RETRY_BASE_MS: "200",
      });
    });
    after(async () => {
      await scene?.close();
      await receiver?.close();
    });

    it("delivers every finished run's events at least once, each under one webhook-id, across kills", async () => {
      restart();
      const { api, site, fleet, url } = scene;
      const key = await api.createKey(`webhooks-crash-${globalThis.crypto.randomUUID()}`, 1_000_000);
      const client = makeClient(api.url, key);
      const registered = await client.post("/v1/webhooks", {
        url: `${receiver.url}/crash`,
        events: ["run.finished", "rows.changed"],
      });
      expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
      receiver.expect("/crash", registered.body.secret, () => 204);
      const ids = await createCrashDatasets(client, site, datasets);
      let done = false;
      const driving = driveRuns(client, site, ids, () => done, waitTerminal);
      await fleet.killRandomly(targetKills);
      done = true;
      const runIds = await driving;
      const statuses = await Promise.all(runIds.map((id) => waitTerminal(client, id)));
      expect(statuses.filter((s) => s === null).length, "runs that never finished").to.equal(0);

      // Every outbox message is delivered in the end (leases expire, the poll finds them).
      const q = async (text: string) => Number((await sql<{ n: string }>(url, text))[0]?.n ?? 0);
      for (
        let waited = 0;
        await q("select count(*) as n from gleaner.webhook_messages where status <> 'delivered'");
      ) {
        expect(waited, "undelivered webhook messages after 120 s").to.be.below(120_000);
        await sleep(500);
        waited += 500;
      }
      const finishedRuns = await sql<{ id: string; status: string }>(
        url,
        "select id, status from gleaner.runs where status in ('succeeded', 'failed', 'blocked')",
      );
      const heldRuns = await q("select count(*) as n from gleaner.runs where status = 'held'");
      const withRevisions = await sql<{ run_id: string }>(
        url,
        "select distinct run_id from gleaner.revisions where run_id is not null",
      );
      const got = receiver.at("/crash");
      expect(
        got.every((d) => d.verified !== null),
        "every delivery verifies",
      ).to.equal(true);
      // One webhook-id per event: the id a delivery carries is a function of (run, event type).
      const idsByEvent = new Map<string, Set<string>>();
      for (const d of got) {
        const data = d.verified!.data as { runId?: string; after?: number; through?: number; datasetId: string };
        const event =
          d.verified!.type === "run.finished" ? `finished:${data.runId}` : `changed:${data.datasetId}:${data.after}`;
        const seen = idsByEvent.get(event) ?? new Set<string>();
        seen.add(String(d.headers["webhook-id"]));
        idsByEvent.set(event, seen);
      }
      const finishedSeen = new Set(
        got.filter((d) => d.verified!.type === "run.finished").map((d) => String(d.verified!.data.runId)),
      );
      const changedSeen = [...idsByEvent.keys()].filter((event) => event.startsWith("changed:")).length;
      const redelivered = got.length - idsByEvent.size;
      console.log(
        `webhooks crash test: runs=${runIds.length} kills=${fleet.kills()} finished=${finishedRuns.length} ` +
          `held=${heldRuns} deliveries=${got.length} events=${idsByEvent.size} redelivered=${redelivered}`,
      );
      expect(fleet.kills()).to.be.at.least(targetKills);
      expect(
        [...idsByEvent.values()].filter((set) => set.size > 1),
        "events seen under two webhook-ids",
      ).to.deep.equal([]);
      const missing = finishedRuns.filter((run) => !finishedSeen.has(run.id));
      expect(missing, "finished runs whose run.finished never arrived").to.deep.equal([]);
      expect(finishedSeen.size, "run.finished only for finished runs").to.equal(finishedRuns.length);
      expect(changedSeen, "a rows.changed for every run that wrote revisions").to.be.at.least(withRevisions.length);
    });
  });
});
