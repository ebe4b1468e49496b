import { aDataset, anAcceptance, anOwner, aQueuedRun } from "@gleaner/conformance";
import { Credits, Storage, StorageFailure, type StorageService } from "@gleaner/core";
import { expect } from "chai";
import { Effect, Either, ManagedRuntime, Option } from "effect";
import { after, before, describe, it } from "mocha";
import pg from "pg";
import { PostgresStoreLive } from "../src/index.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

// Every record read back is decoded with core's schemas (docs/decisions/0012-one-house.md): a
// stored value the schema refuses fails the read with a StorageFailure that names the record and
// the field, instead of reaching the API as a silently wrong value.

await whenPostgresReachable("postgres store: stored records are decoded", (url) => {
  describe("postgres store: stored records are decoded with core's schemas", () => {
    const schema = freshSchema();
    const runtime = ManagedRuntime.make(PostgresStoreLive({ url, schema }));
    const sql = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` });
    const store = <A, E>(f: (s: StorageService) => Effect.Effect<A, E>) =>
      runtime.runPromise(Effect.either(Effect.flatMap(Storage, f)));
    const refusal = (answer: Either.Either<unknown, unknown>): StorageFailure => {
      if (Either.isRight(answer)) expect.fail(`the read answered ${JSON.stringify(answer.right)}`);
      expect(answer.left).to.be.instanceOf(StorageFailure);
      return answer.left as StorageFailure;
    };

    const owner = anOwner();
    const dataset = aDataset(owner.id);
    const queued = aQueuedRun(dataset);
    let rowId = "";

    before(async () => {
      await store((s) => s.createOwner(owner));
      await store((s) => s.insertDataset(dataset));
      await runtime.runPromise(Effect.flatMap(Credits, (c) => c.grant(owner.id, 10)));
      await store((s) => s.insertRun(queued));
      const claimed = await store((s) => s.claimRun(queued.id, new Date().toISOString(), false));
      const running = Option.getOrThrow(Either.getOrThrow(claimed));
      const acceptance = anAcceptance(running, 1, ["row-a"]);
      rowId = acceptance.rows[0]?.row.id ?? "";
      expect(Either.getOrThrow(await store((s) => s.acceptRun(acceptance)))._tag).to.equal("Accepted");
    });
    after(async () => {
      await runtime.dispose();
      await sql.end();
      await dropSchema(url, schema);
    });

    it("reads back what it wrote, the ids checked against their brands", async () => {
      const rows = Either.getOrThrow(await store((s) => s.loadRows(dataset.id)));
      expect(rows.map((r) => r.id)).to.deep.equal([rowId]);
      const stored = Option.getOrThrow(Either.getOrThrow(await store((s) => s.getDataset(owner.id, dataset.id))));
      expect(stored.record).to.deep.equal(dataset);
      expect(stored.lastRun).to.include({ id: queued.id, status: "succeeded" });
    });

    it("a row whose status the schema does not know fails the read, naming the row and the field", async () => {
      await sql.query("update rows set status = 'vanished' where id = $1", [rowId]);
      const failure = refusal(await store((s) => s.loadRows(dataset.id)));
      expect(failure.message).to.contain(`stored row ${rowId}`).and.to.contain("/status");
      expect(failure.unavailable).to.equal(false);
      refusal(await store((s) => s.getRow(dataset.id, rowId as never)));
      await sql.query("update rows set status = 'new' where id = $1", [rowId]);
      expect(Either.isRight(await store((s) => s.loadRows(dataset.id)))).to.equal(true);
    });

    it("a revision naming a field by something other than a UUID fails the change feed's read", async () => {
      await sql.query("update revisions set changed_field_ids = '{not-a-field-id}' where row_id = $1", [rowId]);
      const read = await store((s) =>
        s.listRevisions(dataset.id, { after: 0, through: 100, limit: 10, rowId: null, fieldId: null }),
      );
      expect(refusal(read).message).to.contain("stored revision").and.to.contain("/changedFieldIds/0");
    });

    it("a dataset whose stored column is malformed fails the read, naming the dataset and the field", async () => {
      await sql.query(`update datasets set columns = '[{"id": "x"}]' where id = $1`, [dataset.id]);
      const failure = refusal(await store((s) => s.getDataset(owner.id, dataset.id)));
      expect(failure.message).to.contain(`stored dataset ${dataset.id}`).and.to.contain("/record/columns/0");
    });

    it("a run whose recorded checks are malformed fails the read instead of passing as checks", async () => {
      await sql.query(`update runs set checks = '[{"checkId": 7}]' where id = $1`, [queued.id]);
      const failure = refusal(await store((s) => s.listRuns(dataset.id, 10)));
      expect(failure.message).to.contain(`stored run ${queued.id}`).and.to.contain("/checks/0");
    });
  });
});
