import { anAcceptance, seedOwnerWithDataset } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Option from "effect/Option";
import { aClaimedRun, aStoreOnItsOwnSchema, carryingItsRevision, whenPostgresReachable } from "./support.js";

// An accepted row holding its new revision's very objects (as core's reconcile builds it) and one that
// only names a revision but holds other values both read back with their own state, wherever rows are read.
await whenPostgresReachable("postgres store: rows written with their revisions", (url) => {
  describe("postgres store: rows written with their revisions", () => {
    const { run } = aStoreOnItsOwnSchema(url);

    it("reads each accepted row back with its own values, whether or not they are its revision's", async () => {
      const storage = await run(Storage);
      const { dataset } = await run(seedOwnerWithDataset(10));
      const running = await run(aClaimedRun(dataset));
      const acceptance = anAcceptance(running, 1, ["same", "own"]);
      const [sameEntry, own] = acceptance.rows;
      // "same" holds its revision's very objects, as core's reconcile builds a revised row.
      const revision = acceptance.revisions[0]!;
      const same = {
        ...sameEntry!,
        row: {
          ...sameEntry!.row,
          data: revision.data,
          evidence: { field: [] },
          overrides: revision.overrides,
          missingReasons: revision.missingReasons,
        },
      };
      const revisions = [{ ...revision, evidence: same.row.evidence }, ...acceptance.revisions.slice(1)];
      // "own" names its revision but holds values of its own (equal objects would be read from it).
      const ownRow = {
        ...own!.row,
        data: { ...own!.row.data, extra: "kept" },
        evidence: { ...own!.row.evidence },
        missingReasons: { ...own!.row.missingReasons },
      };
      const outcome = await run(
        storage.acceptRun({ ...acceptance, revisions, rows: [same, { ...own!, row: ownRow }] }),
      );
      expect(outcome._tag).to.equal("Accepted");

      const stored = new Map((await run(storage.loadRows(dataset.id))).map((row) => [row.rowKey, row]));
      expect(stored.get(same.row.rowKey)?.data).to.deep.equal(same.row.data);
      expect(stored.get(same.row.rowKey)?.evidence).to.deep.equal(same.row.evidence);
      expect(stored.get(same.row.rowKey)?.revisionId).to.equal(same.row.revisionId);
      expect(stored.get(ownRow.rowKey)?.data).to.deep.equal(ownRow.data);
      expect(stored.get(ownRow.rowKey)?.data).to.not.deep.equal(acceptance.revisions[1]!.data);
      // Every read of rows gives the revision's state for the row written with it.
      const listed = await run(storage.listRows(dataset.id, { after: null, since: null, statuses: [], limit: 10 }));
      expect(listed.find((row) => row.rowKey === same.row.rowKey)?.evidence).to.deep.equal(same.row.evidence);
      const got = Option.getOrThrow(await run(storage.getRow(dataset.id, same.row.id)));
      expect([got.data, got.evidence, got.overrides, got.missingReasons]).to.deep.equal([
        same.row.data,
        same.row.evidence,
        same.row.overrides,
        same.row.missingReasons,
      ]);
    });

    it("stores an edited row from its new revision, with its state", async () => {
      const storage = await run(Storage);
      const { dataset } = await run(seedOwnerWithDataset(10));
      const running = await run(aClaimedRun(dataset));
      const acceptance = anAcceptance(running, 1, ["edited"]);
      // Values of its own, not its revision's objects.
      const row = { ...acceptance.rows[0]!.row, data: { ...acceptance.rows[0]!.row.data } };
      await run(storage.acceptRun({ ...acceptance, rows: [{ ...acceptance.rows[0]!, row }] }));

      const edit = {
        ...acceptance.revisions[0]!,
        id: globalThis.crypto.randomUUID(),
        previousRevisionId: row.revisionId,
        runId: null,
        origin: "user" as const,
        kind: "edit" as const,
        data: { ...row.data, edited: "yes" },
        before: row.data,
        beforeOverrides: row.overrides,
      };
      // As core builds an edited row: the revision's very objects.
      const editedRow = carryingItsRevision(row, edit);
      await run(storage.applyEdit(editedRow, row.revisionId, edit));
      const [read] = await run(storage.loadRows(dataset.id));
      expect(read?.data).to.deep.equal(edit.data);
      expect(read?.revisionId).to.equal(edit.id);
    });
  });
});
