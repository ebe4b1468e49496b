import { anAcceptance, aQueuedRun, seedOwnerWithDataset } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { expect } from "chai";
import type * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import { PostgresStoreLive } from "../src/index.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

// An accepted row whose state is its new revision's is stored from that revision (decision 0020);
// one that only names a revision but holds other values must keep its own.
await whenPostgresReachable("postgres store: rows written with their revisions", (url) => {
  describe("postgres store: rows written with their revisions", () => {
    const schema = freshSchema();
    const runtime = ManagedRuntime.make(PostgresStoreLive({ url, schema, poolSize: 4 }));
    const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect);
    after(async () => {
      await runtime.dispose();
      await dropSchema(url, schema);
    });

    it("reads each accepted row back with its own values, whether or not they are its revision's", async () => {
      const storage = await run(Storage);
      const { dataset } = await run(seedOwnerWithDataset(10));
      const queued = aQueuedRun(dataset);
      await run(storage.insertRun(queued));
      const running = Option.getOrThrow(await run(storage.claimRun(queued.id, new Date().toISOString(), false)));
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
    });
  });
});
