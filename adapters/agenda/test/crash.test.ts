import { makeClient } from "@gleaner/conformance";
import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import { sql, whenPostgresReachable } from "./support.js";
import { type CrashScene, createCrashDatasets, driveRuns, progressWatch, startCrashScene } from "./worker-fleet.js";

/**
 * Several `gleaner worker` processes execute many runs of the books site while they are killed
 * with SIGKILL at random moments and restarted. Afterwards every run must be terminal, charged at
 * most once, its revisions written once with gapless sequences, and the ledger must equal the
 * pages of the accepted runs.
 */
const workers = 3;
const targetKills = 22;
const datasets = 8;
const lockLifetimeMs = 3_000;

await whenPostgresReachable("crash test: gleaner workers killed with SIGKILL", (baseUrl) => {
  describe("crash test: gleaner workers on postgres + agenda(postgres), killed with SIGKILL", function () {
    // Bounded by progress (waitTerminal's stall window), not by the clock: slow is not lost.
    this.timeout(0);
    let scene: CrashScene;
    const { waitTerminal, restart } = progressWatch();

    before(async () => {
      scene = await startCrashScene(baseUrl, workers, { GLEANER_AGENDA_LOCK_LIFETIME_MS: String(lockLifetimeMs) });
    });
    after(() => scene?.close());

    it("loses no run, charges no run twice and writes no revision twice across 20+ kills", async () => {
      restart();
      const { api, site, fleet, url } = scene;
      const key = await api.createKey(`crash-${globalThis.crypto.randomUUID()}`, 1_000_000);
      const client = makeClient(api.url, key);
      const ids = await createCrashDatasets(client, site, datasets);

      let done = false;
      const driving = driveRuns(client, site, ids, () => done, waitTerminal);
      await fleet.killRandomly(targetKills);
      done = true;
      const runIds = await driving;

      // Every run must reach a terminal state with the workers left running.
      const statuses = await Promise.all(runIds.map((id) => waitTerminal(client, id)));
      const lost = statuses.filter((s) => s === null).length;

      const schema = "gleaner";
      const q = async (text: string) => (await sql<{ n: string }>(url, text))[0]?.n ?? "0";
      const stuck = Number(await q(`select count(*) as n from ${schema}.runs where status in ('queued', 'running')`));
      const doubleCharges = Number(
        await q(
          `select count(*) as n from (select run_id from ${schema}.ledger_entries where kind = 'charge'
             group by run_id having count(*) > 1) d`,
        ),
      );
      const duplicateRevisions = Number(
        await q(
          `select count(*) as n from (select row_id, run_id from ${schema}.revisions where run_id is not null
             group by row_id, run_id having count(*) > 1
           union all select dataset_id, null from ${schema}.revisions group by dataset_id, sequence having count(*) > 1) d`,
        ),
      );
      const sequenceGaps = Number(
        await q(
          `select count(*) as n from ${schema}.datasets d
             left join (select dataset_id, count(*) as c, min(sequence) as lo, max(sequence) as hi
                          from ${schema}.revisions group by dataset_id) r on r.dataset_id = d.id
            where coalesce(r.c, 0) <> d.last_sequence or (r.c > 0 and (r.lo <> 1 or r.hi <> d.last_sequence))`,
        ),
      );
      const ledger = Number(
        await q(`select coalesce(sum(-amount), 0) as n from ${schema}.ledger_entries where kind = 'charge'`),
      );
      const acceptedPages = Number(
        await q(`select coalesce(sum(charged_pages), 0) as n from ${schema}.runs where status = 'succeeded'`),
      );
      const chargesOfUnacceptedRuns = Number(
        await q(
          `select count(*) as n from ${schema}.ledger_entries l join ${schema}.runs r on r.id = l.run_id
            where l.kind = 'charge' and (r.status <> 'succeeded' or l.pages is distinct from r.charged_pages)`,
        ),
      );
      const [counts] = await sql<{ runs: string; succeeded: string; reclaimed: string }>(
        url,
        `select count(*) as runs, count(*) filter (where status = 'succeeded') as succeeded,
                count(*) filter (where attempts > 1) as reclaimed from ${schema}.runs`,
      );

      console.log(
        `crash test: runs=${runIds.length} kills=${fleet.kills()} lost=${lost + stuck} double_charges=${doubleCharges} ` +
          `duplicate_revisions=${duplicateRevisions} sequence_gaps=${sequenceGaps} ledger=${ledger} ` +
          `accepted_pages=${acceptedPages} succeeded=${counts?.succeeded} reclaimed_after_kill=${counts?.reclaimed}`,
      );
      expect(fleet.kills()).to.be.at.least(20);
      expect(Number(counts?.runs)).to.equal(runIds.length);
      expect(lost + stuck, "lost runs").to.equal(0);
      expect(doubleCharges, "double charges").to.equal(0);
      expect(duplicateRevisions, "duplicate revisions").to.equal(0);
      expect(sequenceGaps, "sequence gaps").to.equal(0);
      expect(chargesOfUnacceptedRuns, "charges that do not match an accepted run").to.equal(0);
      expect(ledger, "ledger = pages of the accepted runs").to.equal(acceptedPages);
      expect(Number(counts?.succeeded)).to.be.greaterThan(0);
    });
  });
});
