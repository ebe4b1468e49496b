import { aNewRow, anAcceptance, seedOwnerWithDataset } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Option from "effect/Option";
import { aClaimedRun, aStoreOnItsOwnSchema, carryingItsRevision, whenPostgresReachable } from "./support.js";

// An acceptance's revisions and rows go to the server as one JSON recordset each: awkward values
// (text COPY's and JSON's escapes, NUL, non-ASCII, empty arrays, NULLs) must come back as written.
await whenPostgresReachable("postgres store: revisions and rows read back as written", (url) => {
  describe("postgres store: revisions and rows read back as written", () => {
    const { run } = aStoreOnItsOwnSchema(url);

    it("reads an acceptance's revisions back as written, awkward values included", async () => {
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

      expect((await run(storage.acceptRun({ ...acceptance, revisions, rows })))._tag).to.equal("Accepted");

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

    it("reads new rows back with every field as written, and stored rows replaced beside new ones", async () => {
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
      expect((await run(storage.acceptRun({ ...accepted, rows })))._tag).to.equal("Accepted");
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
      {
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
      }
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
