import { aDataset, aNewRow, anAcceptance, anOwner, aQueuedRun, seedOwnerWithDataset } from "@gleaner/conformance";
import { type NewRevision, Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Option from "effect/Option";
import pg from "pg";
import { makeDb } from "../src/db.js";
import { revisionsFromRows, sendRevisionsFromRows } from "../src/rows.js";
import {
  aClaimedRun,
  aStoreOnItsOwnSchema,
  carryingItsRevision,
  sentDuring,
  whenPostgresReachable,
} from "./support.js";

// An acceptance's revisions go to the server with COPY (decision 0025), in COPY's binary format
// since decision 0029 (copy-binary.ts): each field its byte length and bytes, uuids as 16 bytes,
// times as microseconds, text[] as an array of its own. Awkward values must come back as written.
// Its new rows go by COPY too (decision 0033), a row holding its revision's state with that
// revision's very bytes; rows already stored are upserted.
await whenPostgresReachable("postgres store: revisions written with COPY", (url) => {
  describe("postgres store: revisions written with COPY", () => {
    const { run } = aStoreOnItsOwnSchema(url);

    it("writes an acceptance's revisions with one COPY and reads awkward values back as written", async () => {
      const storage = await run(Storage);
      const { dataset } = await run(seedOwnerWithDataset(10));
      const running = await run(aClaimedRun(dataset));
      const acceptance = anAcceptance(running, 1, ["plain", "awkward"]);
      const awkward = 'tab\there, line\nbreak, cr\r, backslash \\ and \\N, quote " and {brace}, NUL \u0000, ünï ✓';
      const fieldIds = [globalThis.crypto.randomUUID(), globalThis.crypto.randomUUID()];
      const revisions = acceptance.revisions.map((revision, i) =>
        i === 0
          ? { ...revision, changedFieldIds: [] }
          : {
              ...revision,
              data: { [awkward]: awkward, number: 1.5, flag: true, none: null },
              changedFieldIds: fieldIds,
              evidence: { [awkward]: [] },
            },
      );
      const rows = acceptance.rows.map((entry, i) =>
        i === 0
          ? entry
          : {
              ...entry,
              // Its revision's very objects, as core's reconcile builds a revised row.
              row: carryingItsRevision(entry.row, revisions[i]!),
            },
      );

      const sent = await sentDuring(async () => {
        expect((await run(storage.acceptRun({ ...acceptance, revisions, rows })))._tag).to.equal("Accepted");
      });
      expect(sent.filter((text) => text.startsWith("copy revisions"))).to.have.length(1);
      expect(sent.filter((text) => text.startsWith("insert into revisions"))).to.deep.equal([]);

      const stored = await run(
        storage.listRevisions(dataset.id, {
          after: 0,
          through: Number.MAX_SAFE_INTEGER,
          limit: 10,
          rowId: null,
          fieldId: null,
        }),
      );
      expect(stored.map((r) => r.sequence)).to.deep.equal([1, 2]);
      // Every field as written: ids, times, empty and awkward text[], NULLs (before, actor, request).
      expect(stored.map(({ sequence: _, ...r }) => r)).to.deep.equal(revisions);
      expect(stored[1]?.data).to.deep.equal(revisions[1]!.data);
      expect(stored[1]?.evidence).to.deep.equal(revisions[1]!.evidence);
      expect(stored[1]?.changedFieldIds).to.deep.equal(fieldIds);
      expect(stored[0]?.data).to.deep.equal(revisions[0]!.data);
      const row = Option.getOrThrow(await run(storage.getRow(dataset.id, rows[1]!.row.id)));
      expect(row.data).to.deep.equal(revisions[1]!.data);
      // The plain row holds objects of its own (not its revision's), written with its state.
      const plain = Option.getOrThrow(await run(storage.getRow(dataset.id, rows[0]!.row.id)));
      expect([plain.data, plain.evidence, plain.revisionId]).to.deep.equal([
        rows[0]!.row.data,
        rows[0]!.row.evidence,
        rows[0]!.row.revisionId,
      ]);
    });

    it("copies new rows in with one COPY, every field as written, and upserts stored rows beside new ones", async () => {
      const storage = await run(Storage);
      const { dataset } = await run(seedOwnerWithDataset(10));
      const first = await run(aClaimedRun(dataset));
      const accepted = anAcceptance(first, 1, ["carries its revision", "holds its own state"]);
      const identity = {
        version: 1 as const,
        key: `entity:${"ab".repeat(32)}`,
        kind: "company" as const,
        anchor: 'Ünï ✓ \\ "quoted"',
        aliases: ["one", "two"],
      };
      const [carrying, own] = accepted.rows;
      const ownRow = {
        ...own!.row,
        data: { ...own!.row.data, extra: 'tab\there, NUL \u0000, "quoted"' },
        missingReasons: { gone: "not_found" },
        identity,
        observedAt: "2026-01-02T03:04:05.678Z",
      };
      const rows = [carrying!, { ...own!, row: ownRow }];
      const sentFirst = await sentDuring(async () => {
        expect((await run(storage.acceptRun({ ...accepted, rows })))._tag).to.equal("Accepted");
      });
      expect(sentFirst.filter((text) => text.startsWith("copy rows"))).to.have.length(1);
      expect(sentFirst.filter((text) => text.startsWith("insert into rows"))).to.deep.equal([]);
      for (const { row } of rows) {
        expect(Option.getOrThrow(await run(storage.getRow(dataset.id, row.id)))).to.deep.equal(row);
      }

      // A later run changes the stored row that carried its revision and adds a new one.
      const second = await run(aClaimedRun(dataset));
      const stored = carrying!.row;
      const added = aNewRow(second, "new in the second run");
      const revision = {
        ...added.revision,
        id: globalThis.crypto.randomUUID() as typeof added.revision.id,
        rowId: stored.id,
        previousRevisionId: stored.revisionId,
        kind: "updated" as const,
        data: { ...stored.data, changed: "yes" },
        before: stored.data,
        beforeOverrides: stored.overrides,
      };
      const changed = {
        ...carryingItsRevision(stored, revision),
        status: "changed" as const,
        lastSeenRunId: second.id,
      };
      const later = anAcceptance(second, 1, []);
      const sentSecond = await sentDuring(async () => {
        const outcome = await run(
          storage.acceptRun({
            ...later,
            rows: [
              { row: changed, expectedRevisionId: stored.revisionId },
              { row: added.row, expectedRevisionId: "absent" },
            ],
            revisions: [revision, added.revision],
          }),
        );
        expect(outcome._tag).to.equal("Accepted");
      });
      expect(sentSecond.filter((text) => text.startsWith("copy rows"))).to.have.length(1);
      expect(sentSecond.filter((text) => text.startsWith("insert into rows"))).to.have.length(1);
      expect(Option.getOrThrow(await run(storage.getRow(dataset.id, changed.id)))).to.deep.equal(changed);
      expect(Option.getOrThrow(await run(storage.getRow(dataset.id, added.row.id)))).to.deep.equal(added.row);
    });

    it("refuses a revision whose id is not a uuid with a StorageFailure and writes nothing", async () => {
      const storage = await run(Storage);
      const { dataset } = await run(seedOwnerWithDataset(10));
      const running = await run(aClaimedRun(dataset));
      const acceptance = anAcceptance(running, 1, ["bad id"]);
      const revisions = acceptance.revisions.map((r) => ({ ...r, id: "not-a-uuid" as never }));
      const exit = await run(Effect.exit(storage.acceptRun({ ...acceptance, revisions })));
      expect(Exit.isFailure(exit) && Cause.failureOption(exit.cause).pipe(Option.isSome)).to.equal(true);
      expect(Option.getOrThrow(await run(storage.getRun(running.ownerId, running.id))).status).to.equal("running");
      expect(await run(storage.lastSequence(dataset.id))).to.equal(0);
    });
  });
});

// A first acceptance's revisions only create rows that carry their state: the server writes them
// from those rows (decision 0036) instead of the host encoding them into a COPY.
await whenPostgresReachable("postgres store: revisions written from their new rows", (url) => {
  describe("postgres store: revisions written from their new rows", () => {
    const { schema, run } = aStoreOnItsOwnSchema(url);

    /** An acceptance of `keys` new rows, each carrying its revision's state, as core's reconcile builds them. */
    const firstAcceptance = async (keys: ReadonlyArray<string>) => {
      const { dataset } = await run(seedOwnerWithDataset(10));
      const running = await run(aClaimedRun(dataset));
      const base = anAcceptance(running, 1, []);
      const fieldIds = [globalThis.crypto.randomUUID(), globalThis.crypto.randomUUID()];
      const made = keys.map((key) => aNewRow(running, key));
      const revisions = made.map(({ revision }) => ({ ...revision, changedFieldIds: fieldIds }));
      const rows = made.map(({ row }, i) => ({
        row: carryingItsRevision(row, revisions[i]!),
        expectedRevisionId: "absent" as const,
      }));
      return { dataset, acceptance: { ...base, rows, revisions } };
    };

    const storedRevisions = async (datasetId: string) =>
      run(
        Effect.flatMap(Storage, (s) =>
          s.listRevisions(datasetId as never, {
            after: 0,
            through: Number.MAX_SAFE_INTEGER,
            limit: 100,
            rowId: null,
            fieldId: null,
          }),
        ),
      );

    it("writes them from the rows, in the acceptance's order, every field as core built it; no revision COPY", async () => {
      const { dataset, acceptance } = await firstAcceptance(["a", "b", "c"]);
      // Revisions in another order than their rows: sequences follow the revisions'.
      const revisions = [acceptance.revisions[2]!, acceptance.revisions[0]!, acceptance.revisions[1]!];
      const sent = await sentDuring(async () => {
        const outcome = await run(Effect.flatMap(Storage, (s) => s.acceptRun({ ...acceptance, revisions })));
        expect(outcome._tag).to.equal("Accepted");
      });
      expect(sent.filter((text) => text.startsWith("copy revisions"))).to.deep.equal([]);
      expect(sent.filter((text) => text.startsWith("with written as"))).to.have.length(1);
      const stored = await storedRevisions(dataset.id);
      expect(stored.map((r) => r.sequence)).to.deep.equal([1, 2, 3]);
      expect(stored.map(({ sequence: _, ...r }) => r)).to.deep.equal(revisions);
    });

    it("copies them in when any differs in what they would share (here: the changed fields)", async () => {
      const { dataset, acceptance } = await firstAcceptance(["a", "b"]);
      const [first, second] = acceptance.revisions as [NewRevision, NewRevision];
      const revisions = [first, { ...second, changedFieldIds: [] }];
      const rows = acceptance.rows.map((entry, i) => ({
        ...entry,
        row: carryingItsRevision(entry.row, revisions[i]!),
      }));
      const sent = await sentDuring(async () => {
        const outcome = await run(Effect.flatMap(Storage, (s) => s.acceptRun({ ...acceptance, revisions, rows })));
        expect(outcome._tag).to.equal("Accepted");
      });
      expect(sent.filter((text) => text.startsWith("copy revisions"))).to.have.length(1);
      expect(sent.filter((text) => text.startsWith("with written as"))).to.deep.equal([]);
      expect((await storedRevisions(dataset.id)).map(({ sequence: _, ...r }) => r)).to.deep.equal(revisions);
    });

    it("fails the transaction, writing none, when a revision finds no row of it", async () => {
      const { dataset, acceptance } = await firstAcceptance(["a", "b"]);
      const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path="${schema}"` });
      try {
        const [shared] = acceptance.revisions as [NewRevision];
        const exit = await Effect.runPromiseExit(
          makeDb(pool).transaction((tx) =>
            Effect.flatten(
              sendRevisionsFromRows(tx, dataset.id, 1, {
                rowIds: acceptance.revisions.map((r) => r.rowId),
                revisionIds: acceptance.revisions.map((r) => r.id),
                shared,
              }),
            ),
          ),
        );
        expect(Exit.isFailure(exit)).to.equal(true);
        if (Exit.isFailure(exit)) {
          expect(Cause.pretty(exit.cause)).to.contain("0 of 2 revisions found their new row");
        }
      } finally {
        await pool.end();
      }
      expect(await storedRevisions(dataset.id)).to.deep.equal([]);
    });
  });
});

describe("postgres store: which revisions the server writes from their rows", () => {
  const running = aQueuedRun(aDataset(anOwner().id));
  /** Three new rows carrying their revisions, alike in everything but ids; `change` edits one revision. */
  const made = (change: (revision: NewRevision) => NewRevision = (r) => r) => {
    const revisions = ["a", "b", "c"].map((key, i) => {
      const { revision } = aNewRow(running, key);
      return i === 1 ? change(revision) : revision;
    });
    const rows = revisions.map((revision, i) =>
      carryingItsRevision(aNewRow(running, ["a", "b", "c"][i]!).row, revision),
    );
    return { revisions, rows: rows.map((row, i) => ({ ...row, id: revisions[i]!.rowId })) };
  };

  it("writes alike creations from their rows, in the revisions' order", () => {
    const { revisions, rows } = made();
    const chosen = revisionsFromRows(revisions, [...rows].reverse());
    expect(chosen?.revisionIds).to.deep.equal(revisions.map((r) => r.id));
    expect(chosen?.rowIds).to.deep.equal(revisions.map((r) => r.rowId));
  });

  it("copies them in when one differs in what they share, is not a creation, or names no new row of its own", () => {
    const differing: Array<[string, (r: NewRevision) => NewRevision]> = [
      ["schema version", (r) => ({ ...r, schemaVersion: 2 })],
      ["time", (r) => ({ ...r, createdAt: "2026-11-25T10:00:00.001Z" })],
      ["origin", (r) => ({ ...r, origin: "user" })],
      ["kind", (r) => ({ ...r, kind: "updated" })],
      ["before", (r) => ({ ...r, before: {} })],
    ];
    for (const [what, change] of differing) {
      const { revisions, rows } = made(change);
      expect(revisionsFromRows(revisions, rows), what).to.equal(null);
    }
    const { revisions, rows } = made();
    expect(revisionsFromRows(revisions, rows.slice(1)), "a revision without its new row").to.equal(null);
    expect(revisionsFromRows(revisions, [rows[0]!, rows[0]!, rows[2]!]), "a row twice").to.equal(null);
    const plain = rows.map((row) => ({ ...row, evidence: { ...row.evidence } }));
    expect(revisionsFromRows(revisions, plain), "rows with state of their own").to.equal(null);
  });

  it("copies them in when the server would read their time otherwise than the COPY encoder", () => {
    for (const createdAt of ["2026-11-25T10:00:00.000", "2026-11-25T10:00:00.1234567Z", "2026-11-25 10:00:00Z"]) {
      const { revisions, rows } = made();
      const timed = revisions.map((r) => ({ ...r, createdAt }));
      const carried = rows.map((row, i) => carryingItsRevision(row, timed[i]!));
      expect(revisionsFromRows(timed, carried), createdAt).to.equal(null);
    }
    const { revisions, rows } = made();
    const offset = revisions.map((r) => ({ ...r, createdAt: "2026-11-25T10:00:00.123456+01:00" }));
    expect(
      revisionsFromRows(
        offset,
        rows.map((row, i) => carryingItsRevision(row, offset[i]!)),
      ),
    ).to.not.equal(null);
  });
});
