import {
  Credits,
  type OwnerId,
  type RevisionId,
  rowsPageStateOf,
  type RunAcceptance,
  Storage,
  type StorageService,
} from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import { allowMs, after, before, describe, it } from "../runner.js";
import type { UnderTest } from "../context.js";
import { aDataset, anAcceptance, anEdit, anOwner, aQueuedRun, evidenceOf } from "./fixtures.js";
import { deleteStoreCases } from "./delete-contract.js";
import { evidenceStoreCases } from "./evidence-contract.js";
import { keyStoreCases } from "./key-contract.js";
import { methodStoreCases } from "./method-contract.js";
import { retentionStoreCases } from "./retention-contract.js";
import { webhookStoreCases } from "./webhook-contract.js";

/** The suite's shape: a name, the Storage + Credits layer factory (built once), supports. */
export interface StoreUnderTest extends UnderTest<Storage | Credits> {
  /** Runs after the store is disposed (drop a schema or database). */
  readonly cleanup?: () => Promise<void>;
}

/**
 * The Storage port's promises that only show under concurrency (idempotent charges, one run per
 * dataset, gapless sequences, racing edits, compare-and-set), checked through the port itself. Every
 * store adopts it: `storeContract({ name: "my store", layer: () => MyStoreLive(...) })`.
 */
export const storeContract = (store: StoreUnderTest): void => {
  describe(`${store.name}: concurrency and idempotency`, function () {
    allowMs(this, 30_000);
    const runtime = ManagedRuntime.make(store.layer());
    const run = <A, E>(f: (storage: StorageService) => Effect.Effect<A, E>) =>
      runtime.runPromise(Effect.flatMap(Storage, f));
    const credits = () => runtime.runPromise(Credits);

    before(() => runtime.runPromise(Effect.void));
    after(async () => {
      await runtime.dispose();
      await store.cleanup?.();
    });

    /** An owner with `balance` credits and a dataset whose run has been claimed (`running`). */
    const runningRun = async (balance: number, ownerId?: OwnerId) => {
      const owner = anOwner();
      if (!ownerId) {
        await run((s) => s.createOwner(owner));
        if (balance > 0) await (await credits()).grant(owner.id, balance).pipe(Effect.runPromise);
      }
      const dataset = aDataset(ownerId ?? owner.id);
      await run((s) => s.insertDataset(dataset));
      const queued = aQueuedRun(dataset);
      await run((s) => s.insertRun(queued));
      const claimed = Option.getOrThrow(await run((s) => s.claimRun(queued.id, new Date().toISOString(), false)));
      return { ownerId: ownerId ?? owner.id, dataset, running: claimed.run };
    };

    it("charges once when the same run is accepted by many deliveries at once", async () => {
      const { ownerId, dataset, running } = await runningRun(10);
      const acceptance = anAcceptance(running, 4, ["a", "b", "c"]);
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => run((s) => s.acceptRun(acceptance))));
      expect(outcomes.filter((o) => o._tag === "Accepted")).to.have.length(1);
      expect(outcomes.filter((o) => o._tag === "AlreadyFinished")).to.have.length(7);
      const balance = await Effect.runPromise((await credits()).balance(ownerId));
      expect(balance).to.equal(6);
      const ledger = await Effect.runPromise((await credits()).ledger(ownerId, "2000-01-01T00:00:00.000Z"));
      expect(ledger.map((e) => e.kind)).to.deep.equal(["charge", "grant"]);
      expect(ledger[0]).to.include({ amount: -4, pages: 4, runId: running.id, datasetId: dataset.id });
      expect(await run((s) => s.lastSequence(dataset.id))).to.equal(3);
      expect(await run((s) => s.loadRows(dataset.id))).to.have.length(3);
      const stored = Option.getOrThrow(await run((s) => s.getRun(ownerId, running.id)));
      const accepted = outcomes.find((o) => o._tag === "Accepted");
      expect(stored).to.deep.equal(accepted && "run" in accepted ? accepted.run : null);
      expect(stored).to.deep.equal({ ...acceptance.run, completedAt: stored.completedAt });
    });

    it("never lets two runs of one owner spend the same credits: one is accepted, the other held", async () => {
      const first = await runningRun(5);
      const second = await runningRun(0, first.ownerId);
      const outcomes = await Promise.all([
        run((s) => s.acceptRun(anAcceptance(first.running, 5, ["x"]))),
        run((s) => s.acceptRun(anAcceptance(second.running, 5, ["y"]))),
      ]);
      expect(outcomes.map((o) => o._tag).sort()).to.deep.equal(["Accepted", "Held"]);
      expect(await Effect.runPromise((await credits()).balance(first.ownerId))).to.equal(0);
      const held = outcomes.find((o) => o._tag === "Held");
      const heldDataset = held && "run" in held && held.run.id === first.running.id ? first.dataset : second.dataset;
      expect(await run((s) => s.loadRows(heldDataset.id))).to.deep.equal([]);
      expect(await run((s) => s.lastSequence(heldDataset.id))).to.equal(0);
      // The held run keeps the evidence meant for a hold (its trace ends in a failed accept step).
      const heldRun = held && "run" in held ? held.run : first.running;
      const heldEvidence = Option.getOrThrow(await run((s) => s.getRunEvidence(heldRun.id)));
      expect(heldEvidence.artifacts).to.deep.equal([]);
    });

    it("keeps a held run's outcome, one per dataset, and accepts it once, only while it is the newest run", async () => {
      const { ownerId, dataset, running } = await runningRun(0);
      const acceptance = anAcceptance(running, 3, ["a", "b"]);
      expect((await run((s) => s.acceptRun(acceptance)))._tag).to.equal("Held");
      const kept = Option.getOrThrow(await run((s) => s.heldOutcome(dataset.id)));
      expect(kept).to.deep.equal(acceptance.heldOutcome());
      const held = Option.getOrThrow(await run((s) => s.getRun(ownerId, running.id)));
      const accepting: RunAcceptance = {
        ...acceptance,
        run: { ...acceptance.run, completedAt: new Date().toISOString() },
        heldRun: held,
        acceptingHeld: true,
      };
      // Unpaid: nothing written, the run still held, its outcome still kept.
      expect(await run((s) => s.acceptRun(accepting))).to.deep.equal({ _tag: "Unpaid", balance: 0 });
      expect(Option.getOrThrow(await run((s) => s.getRun(ownerId, running.id))).status).to.equal("held");
      expect(Option.isSome(await run((s) => s.heldOutcome(dataset.id)))).to.equal(true);
      await (await credits()).grant(ownerId, 5).pipe(Effect.runPromise);
      const outcomes = await Promise.all(Array.from({ length: 4 }, () => run((s) => s.acceptRun(accepting))));
      expect(outcomes.map((o) => o._tag).sort()).to.deep.equal([
        "Accepted",
        "AlreadyFinished",
        "AlreadyFinished",
        "AlreadyFinished",
      ]);
      expect(await Effect.runPromise((await credits()).balance(ownerId))).to.equal(2);
      expect(await run((s) => s.loadRows(dataset.id))).to.have.length(2);
      expect(Option.getOrThrow(await run((s) => s.getRun(ownerId, running.id))).status).to.equal("succeeded");
      expect(Option.isNone(await run((s) => s.heldOutcome(dataset.id)))).to.equal(true);
    });

    it("refuses to accept a held run once a later run of its dataset was queued", async () => {
      const { ownerId, dataset, running } = await runningRun(0);
      const acceptance = anAcceptance(running, 1, ["a"]);
      await run((s) => s.acceptRun(acceptance));
      await run((s) => s.insertRun(aQueuedRun(dataset, 1)));
      await (await credits()).grant(ownerId, 5).pipe(Effect.runPromise);
      const held = Option.getOrThrow(await run((s) => s.getRun(ownerId, running.id)));
      const accepting = { ...acceptance, heldRun: held, acceptingHeld: true };
      expect(await run((s) => s.acceptRun(accepting))).to.deep.equal({ _tag: "RowsChanged" });
      expect(await Effect.runPromise((await credits()).balance(ownerId))).to.equal(5);
      expect(await run((s) => s.loadRows(dataset.id))).to.deep.equal([]);
    });

    it("answers RowsChanged and writes nothing when a row's head moved", async () => {
      const { ownerId, dataset, running } = await runningRun(10);
      const acceptance = anAcceptance(running, 1, ["a"]);
      const [entry] = acceptance.rows;
      const stale = {
        ...acceptance,
        rows: [{ row: entry!.row, expectedRevisionId: entry!.row.revisionId as RevisionId }],
      };
      expect(await run((s) => s.acceptRun(stale))).to.deep.equal({ _tag: "RowsChanged" });
      expect(await Effect.runPromise((await credits()).balance(ownerId))).to.equal(10);
      expect(Option.getOrThrow(await run((s) => s.getRun(ownerId, running.id))).status).to.equal("running");
      expect(await run((s) => s.lastSequence(dataset.id))).to.equal(0);
    });

    it("allows one queued or running run per dataset, even when many are inserted at once", async () => {
      const owner = anOwner();
      await run((s) => s.createOwner(owner));
      const dataset = aDataset(owner.id);
      await run((s) => s.insertDataset(dataset));
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => run((s) => Effect.either(s.insertRun(aQueuedRun(dataset, i))))),
      );
      expect(results.filter(Either.isRight)).to.have.length(1);
      for (const failure of results.filter(Either.isLeft)) {
        expect(failure.left).to.include({ _tag: "Conflict", code: "run_in_progress" });
      }
    });

    it("claims a queued run once, with its dataset as stored; a redelivery reclaims it while running", async () => {
      const owner = anOwner();
      await run((s) => s.createOwner(owner));
      const dataset = aDataset(owner.id);
      await run((s) => s.insertDataset(dataset));
      const queued = aQueuedRun(dataset);
      await run((s) => s.insertRun(queued));
      const startedAt = new Date().toISOString();
      const claims = await Promise.all([1, 2, 3].map(() => run((s) => s.claimRun(queued.id, startedAt, false))));
      const [won, ...others] = claims.filter(Option.isSome).map((claim) => claim.value);
      expect(others).to.have.length(0);
      expect(won?.run).to.include({ id: queued.id, status: "running", startedAt, attempts: 1 });
      expect(Option.getOrThrow(await Effect.runPromise(won!.dataset))).to.deep.equal(dataset);
      const redelivered = Option.getOrThrow(await run((s) => s.claimRun(queued.id, startedAt, true)));
      expect(redelivered.run.attempts).to.equal(2);
      expect(Option.getOrThrow(await Effect.runPromise(redelivered.dataset))).to.deep.equal(dataset);
    });

    it("counts an owner's datasets, active runs and recent runs for the per-owner limits", async () => {
      const owner = anOwner();
      await run((s) => s.createOwner(owner));
      const first = aDataset(owner.id);
      const second = aDataset(owner.id);
      await run((s) => s.insertDataset(first));
      await run((s) => s.insertDataset(second));
      const older = aQueuedRun(first, -7_200_000);
      await run((s) => s.insertRun(older));
      const claimed = Option.getOrThrow(await run((s) => s.claimRun(older.id, older.queuedAt, false))).run;
      const finished = { ...claimed, status: "failed" as const, completedAt: older.queuedAt };
      await run((s) => s.finishRun(finished, evidenceOf(finished)));
      const recent = aQueuedRun(second, -60_000);
      await run((s) => s.insertRun(recent));
      const since = new Date(Date.parse(recent.queuedAt) - 3_600_000 + 60_000).toISOString();
      const activity = await run((s) => s.ownerActivity(owner.id, since));
      expect(activity).to.deep.equal({ datasets: 2, activeRuns: 1, runsSince: 1, oldestRunSince: recent.queuedAt });
      const stranger = await run((s) => s.ownerActivity(anOwner().id, since));
      expect(stranger).to.deep.equal({ datasets: 0, activeRuns: 0, runsSince: 0, oldestRunSince: null });
    });

    it("numbers the revisions of successive runs of one dataset gaplessly", async () => {
      const owner = anOwner();
      await run((s) => s.createOwner(owner));
      await Effect.runPromise((await credits()).grant(owner.id, 100));
      const dataset = aDataset(owner.id);
      await run((s) => s.insertDataset(dataset));
      for (let round = 0; round < 3; round++) {
        const queued = aQueuedRun(dataset, round);
        await run((s) => s.insertRun(queued));
        const running = Option.getOrThrow(await run((s) => s.claimRun(queued.id, new Date().toISOString(), false))).run;
        await run((s) => s.acceptRun(anAcceptance(running, 1, [`r${round}a`, `r${round}b`])));
      }
      const revisions = await run((s) =>
        s.listRevisions(dataset.id, { after: 0, through: 100, limit: 100, rowId: null, fieldId: null }),
      );
      expect(revisions.map((r) => r.sequence)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    });

    it("lists each row's head as of a sequence, by row id, page after page (point-in-time exports)", async () => {
      const { dataset, running } = await runningRun(10);
      const acceptance = anAcceptance(running, 1, ["a", "b", "c"]);
      await run((s) => s.acceptRun(acceptance));
      const [first] = acceptance.rows.map(({ row }) => row);
      const edit = anEdit(first!, `req-as-of-${first!.id}`);
      await run((s) => s.applyEdit(edit.row, first!.revisionId!, edit.revision));
      const heads = async (asOf: number, limit: number) => {
        const all: Array<{ rowKey: string; revisionId: string; sequence: number }> = [];
        let after: (typeof first)["id"] | null = null;
        for (;;) {
          const page = await run((s) => s.listRowsAsOf(dataset.id, { asOf, after, limit }));
          all.push(
            ...page.map((h) => ({ rowKey: h.rowKey, revisionId: h.revision.id, sequence: h.revision.sequence })),
          );
          if (page.length < limit) return all;
          after = page[page.length - 1]!.revision.rowId;
        }
      };
      const byRowId = [...acceptance.rows.map(({ row }) => row)].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(await heads(0, 2)).to.deep.equal([]);
      // As of sequence 2 only the first two created rows exist (sequences follow the acceptance order).
      expect((await heads(2, 1)).map((h) => h.rowKey).sort()).to.deep.equal(
        acceptance.rows
          .slice(0, 2)
          .map(({ row }) => row.rowKey)
          .sort(),
      );
      const atThree = await heads(3, 2);
      expect(atThree.map((h) => h.rowKey)).to.deep.equal(byRowId.map((r) => r.rowKey));
      expect(atThree.find((h) => h.rowKey === first!.rowKey)?.revisionId).to.equal(first!.revisionId);
      const atFour = await heads(4, 2);
      expect(atFour.find((h) => h.rowKey === first!.rowKey)).to.deep.include({
        revisionId: edit.revision.id,
        sequence: 4,
      });
    });

    it("serialises concurrent edits: one winner per row head, gapless sequences, request ids used once", async () => {
      const { dataset, running } = await runningRun(10);
      const acceptance = anAcceptance(running, 1, ["a", "b", "c"]);
      await run((s) => s.acceptRun(acceptance));
      const rows = acceptance.rows.map(({ row }) => row);
      // Two edits of each row, both made against the head accepted above: only one can win.
      const edits = rows.flatMap((row) =>
        [1, 2].map((n) => ({ head: row.revisionId!, ...anEdit(row, `req-${row.id}-${n}`) })),
      );
      const results = await Promise.all(
        edits.map(({ head, row, revision }) => run((s) => Effect.either(s.applyEdit(row, head, revision)))),
      );
      const won = results.filter(Either.isRight).map((r) => r.right);
      expect(won.map((r) => r.sequence).sort()).to.deep.equal([4, 5, 6]);
      for (const lost of results.filter(Either.isLeft)) expect(lost.left).to.include({ code: "stale_revision" });
      const first = won[0]!;
      const current = Option.getOrThrow(await run((s) => s.getRow(dataset.id, first.rowId)));
      const again = anEdit(current, first.requestId!);
      const duplicate = await run((s) => Effect.either(s.applyEdit(again.row, current.revisionId!, again.revision)));
      expect(Either.isLeft(duplicate) && duplicate.left).to.include({ code: "duplicate_request" });
      expect(await run((s) => s.lastSequence(dataset.id))).to.equal(6);
      const found = Option.getOrThrow(await run((s) => s.findRevisionByRequest(dataset.id, first.requestId!)));
      expect(found).to.deep.equal(first);
    });

    it("reads a row a later run saw unchanged (seenOnly) with that run's seen-markers, wherever rows are read", async () => {
      const { dataset, running } = await runningRun(10);
      const first = anAcceptance(running, 1, ["kept", "other"]);
      await run((s) => s.acceptRun(first));
      const queued = aQueuedRun(dataset, 60_000);
      await run((s) => s.insertRun(queued));
      const second = Option.getOrThrow(await run((s) => s.claimRun(queued.id, new Date().toISOString(), false))).run;
      const observedAt = new Date(Date.parse(first.run.completedAt!) + 60_000).toISOString();
      const seen = first.rows.map(({ row }) => ({
        row: { ...row, lastSeenRunId: second.id, observedAt, status: "unchanged" as const },
        expectedRevisionId: row.revisionId,
        seenOnly: true,
      }));
      const outcome = await run((s) => s.acceptRun({ ...anAcceptance(second, 1, []), rows: seen }));
      expect(outcome._tag).to.equal("Accepted");
      const expected = seen.map(({ row }) => row).sort((a, b) => (a.id < b.id ? -1 : 1));
      const loaded = [...(await run((s) => s.loadRows(dataset.id)))].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(loaded).to.deep.equal(expected);
      expect(Option.getOrThrow(await run((s) => s.getRow(dataset.id, expected[0]!.id)))).to.deep.equal(expected[0]);
      const page = { after: null, since: null, limit: 10 };
      const unchanged = await run((s) => s.listRows(dataset.id, { ...page, statuses: ["unchanged"] }));
      expect(unchanged.map((r) => r.id).sort()).to.deep.equal(expected.map((r) => r.id));
      expect(await run((s) => s.listRows(dataset.id, { ...page, statuses: ["new"] }))).to.deep.equal([]);
    });

    it("reads a rows page's tag inputs: revision, last sequence, newest run; only the owner's", async () => {
      // In one call where the store has rowsPageState, else as core's fallback reads them.
      const { ownerId, dataset, running } = await runningRun(10);
      const state = () => run((s) => rowsPageStateOf(s, ownerId, dataset.id)).then(Option.getOrThrow);
      expect(await state()).to.deep.equal({
        revision: 1,
        lastSequence: 0,
        newestRun: { id: running.id, status: "running" },
      });
      const acceptance = anAcceptance(running, 1, ["a", "b"]);
      await run((s) => s.acceptRun(acceptance));
      expect(await state()).to.deep.include({ lastSequence: 2, newestRun: { id: running.id, status: "succeeded" } });
      // Newest by queuedAt, not by insertion: a run queued earlier but stored later is not the newest.
      const earlier = aQueuedRun(dataset, -3_600_000);
      await run((s) => s.insertRun(earlier));
      expect((await state()).newestRun).to.deep.equal({ id: running.id, status: "succeeded" });
      const later = aQueuedRun(dataset, 3_600_000);
      const claimed = Option.getOrThrow(await run((s) => s.claimRun(earlier.id, earlier.queuedAt, false))).run;
      await run((s) =>
        s.finishRun({ ...claimed, status: "failed", completedAt: earlier.queuedAt }, evidenceOf(claimed)),
      );
      await run((s) => s.insertRun(later));
      expect((await state()).newestRun).to.deep.equal({ id: later.id, status: "queued" });
      const row = acceptance.rows[0]!.row;
      const edit = anEdit(row, `req-tag-${row.id}`);
      await run((s) => s.applyEdit(edit.row, row.revisionId!, edit.revision));
      await run((s) => s.updateDataset({ ...dataset, revision: 2 }));
      expect(await state()).to.deep.include({ revision: 2, lastSequence: 3 });
      const stranger = anOwner();
      expect(Option.isNone(await run((s) => rowsPageStateOf(s, stranger.id, dataset.id)))).to.equal(true);
      expect(Option.isNone(await run((s) => rowsPageStateOf(s, ownerId, "not-a-uuid" as never)))).to.equal(true);
    });

    it("finds nothing (rather than failing) for ids that are not UUIDs", async () => {
      const owner = anOwner();
      expect(Option.isNone(await run((s) => s.getDataset(owner.id, "not-a-uuid" as never)))).to.equal(true);
      expect(await run((s) => s.getObservations(["nope" as never]))).to.deep.equal([]);
      expect(Option.isNone(await run((s) => s.getRunTrace("not-a-uuid" as never)))).to.equal(true);
      expect(Option.isNone(await run((s) => s.listRunArtifacts("not-a-uuid" as never)))).to.equal(true);
      expect(Option.isNone(await run((s) => s.getArtifact("not-a-uuid" as never, "page-1")))).to.equal(true);
    });

    it("keeps a dataset's revision counter across an update, and refuses a stale one or a taken name", async () => {
      const owner = anOwner();
      await run((s) => s.createOwner(owner));
      const first = aDataset(owner.id, "first");
      const second = aDataset(owner.id, "second");
      await run((s) => s.insertDataset(first));
      await run((s) => s.insertDataset(second));
      const dup = await run((s) => Effect.either(s.insertDataset(aDataset(owner.id, "first"))));
      expect(Either.isLeft(dup) && dup.left).to.include({ code: "name_taken" });
      const renamed = { ...first, name: "renamed", revision: first.revision + 1 };
      await run((s) => s.updateDataset(renamed));
      const stale = await run((s) => Effect.either(s.updateDataset({ ...first, revision: first.revision + 1 })));
      expect(Either.isLeft(stale) && stale.left).to.include({ code: "stale_dataset" });
      const taken = await run((s) => Effect.either(s.updateDataset({ ...second, name: "renamed", revision: 2 })));
      expect(Either.isLeft(taken) && taken.left).to.include({ code: "name_taken" });
      const listed = await run((s) => s.listDatasets(owner.id, { after: null, limit: 10 }));
      expect(listed.map((d) => d.record.name)).to.deep.equal(
        [renamed, second].sort((a, b) => (a.id < b.id ? 1 : -1)).map((d) => d.name),
      );
    });

    it("lists the ledger newest first by insertion, even within one millisecond", async () => {
      const owner = anOwner();
      await run((s) => s.createOwner(owner));
      const service = await credits();
      for (const amount of [1, 2, 3, 4]) await Effect.runPromise(service.grant(owner.id, amount));
      const ledger = await Effect.runPromise(service.ledger(owner.id, "2000-01-01T00:00:00.000Z"));
      expect(ledger.map((e) => e.amount)).to.deep.equal([4, 3, 2, 1]);
      expect(await Effect.runPromise(service.balance(owner.id))).to.equal(10);
    });

    it("finds an API key with its owner and the balance Credits reads, before and after a charge", async () => {
      const { ownerId, running } = await runningRun(10);
      const createdAt = new Date().toISOString();
      await run((s) => s.addApiKey({ hash: `key-of-${ownerId}`, ownerId, createdAt }));
      const found = async (hash: string) => Option.getOrThrow(await run((s) => s.findApiKey(hash)));
      const first = await found(`key-of-${ownerId}`);
      expect(first.owner.id).to.equal(ownerId);
      // A key added without what listing shows (id, name, …) may get an id from the store, as older keys did.
      expect(first.key).to.deep.include({ hash: `key-of-${ownerId}`, ownerId, createdAt });
      expect(first.balance).to.equal(10);
      await run((s) => s.acceptRun(anAcceptance(running, 4, ["a"])));
      const charged = await found(`key-of-${ownerId}`);
      expect(charged.balance).to.equal(6);
      expect(charged.balance).to.equal(await Effect.runPromise((await credits()).balance(ownerId)));
      const penniless = anOwner();
      await run((s) => s.createOwner(penniless));
      await run((s) => s.addApiKey({ hash: `key-of-${penniless.id}`, ownerId: penniless.id, createdAt }));
      expect((await found(`key-of-${penniless.id}`)).balance).to.equal(0);
      expect(Option.isNone(await run((s) => s.findApiKey("no-such-key")))).to.equal(true);
    });

    const harness = { name: store.name, run, runningRun, credits };
    evidenceStoreCases(harness);
    webhookStoreCases(harness);
    deleteStoreCases(harness);
    retentionStoreCases(harness);
    methodStoreCases(harness);
    keyStoreCases(harness);
  });
};
