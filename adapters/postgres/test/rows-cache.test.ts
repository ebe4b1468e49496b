import { anAcceptance, anEdit, seedOwnerWithDataset } from "@gleaner/conformance";
import { type DatasetRecord, type RowRecord, type RunRecord, Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import { PostgresStoreLive } from "../src/index.js";
import { makeRowsCache } from "../src/rows-cache.js";
import { aClaimedRun, sentDuring, twoStoresOnOneSchema, whenPostgresReachable } from "./support.js";

// Decision 0035: a process keeps a dataset's decoded rows between runs, and uses them only while
// the database says the dataset's rows are unchanged (its revision counter and its last sighting).

/** Every row of `rows` seen unchanged by `run`: what core hands the store for an unchanged re-run. */
const seenUnchangedBy = (run: RunRecord, rows: ReadonlyArray<RowRecord>) => {
  const base = anAcceptance(run, 1, []);
  const observedAt = new Date().toISOString();
  return {
    ...base,
    run: { ...base.run, rowDeltas: { new: 0, changed: 0, gone: 0 } },
    rows: rows.map((row) => ({
      row: { ...row, status: "unchanged" as const, lastSeenRunId: run.id, observedAt },
      expectedRevisionId: row.revisionId,
      seenOnly: true,
    })),
  };
};

await whenPostgresReachable("postgres store: the rows kept between runs", (url) => {
  describe("postgres store: the rows kept between runs (decision 0035)", () => {
    // Two processes on one database: each keeps its own rows.
    const { schema, first, second, client } = twoStoresOnOneSchema(url);
    let dataset: DatasetRecord;
    const loadRows = (runtime: typeof first) =>
      runtime.runPromise(Effect.flatMap(Storage, (storage) => storage.loadRows(dataset.id)));
    const accept = (runtime: typeof first, build: (run: RunRecord) => Parameters<Storage["Type"]["acceptRun"]>[0]) =>
      runtime.runPromise(
        Effect.gen(function* () {
          const run = yield* aClaimedRun(dataset);
          return yield* (yield* Storage).acceptRun(build(run));
        }),
      );

    /** Row "b" of `kept`, edited by the other process: the edit. */
    const editedBySecond = async (kept: ReadonlyArray<RowRecord>, requestId: string) => {
      const row = kept.find((r) => r.rowKey === "b")!;
      const edit = anEdit(row, requestId);
      await second.runPromise(
        Effect.flatMap(Storage, (storage) => storage.applyEdit(edit.row, row.revisionId!, edit.revision)),
      );
      return edit;
    };

    beforeEach(async () => {
      dataset = (await first.runPromise(seedOwnerWithDataset(100))).dataset;
      // As the engine does: the rows are read, then the acceptance written.
      expect(await loadRows(first)).to.deep.equal([]);
      const outcome = await accept(first, (run) => anAcceptance(run, 1, ["a", "b", "c"]));
      expect(outcome._tag).to.equal("Accepted");
    });

    it("answers the rows a process accepted without reading them back", async () => {
      let rows: ReadonlyArray<RowRecord> = [];
      const sent = await sentDuring(async () => {
        rows = await loadRows(first);
      });
      expect(rows.map((row) => row.rowKey).sort()).to.deep.equal(["a", "b", "c"]);
      // One statement, the version: not the rows.
      expect(sent).to.deep.equal(["select d.last_sequence::text as"]);
      expect(await loadRows(first)).to.equal(rows);
    });

    it("reads the rows again after another process's edit", async () => {
      const kept = await loadRows(first);
      const edit = await editedBySecond(kept, "edit-1");
      const after = await loadRows(first);
      expect(after.find((r) => r.rowKey === "b")!.data).to.deep.equal(edit.row.data);
    });

    it("reads the rows again after another process's unchanged run (only the sighting changed)", async () => {
      const kept = await loadRows(first);
      let runId = "";
      const outcome = await accept(second, (run) => {
        runId = run.id;
        return seenUnchangedBy(run, kept);
      });
      expect(outcome._tag).to.equal("Accepted");
      const after = await loadRows(first);
      expect(after.map((r) => [r.status, r.lastSeenRunId])).to.deep.equal(kept.map(() => ["unchanged", runId]));
    });

    it("keeps the rows of its own unchanged run as the database answers them", async () => {
      const kept = await loadRows(first);
      const outcome = await accept(first, (run) => seenUnchangedBy(run, kept));
      expect(outcome._tag).to.equal("Accepted");
      const cached = await loadRows(first);
      const read = await loadRows(second);
      const byId = (rows: ReadonlyArray<RowRecord>) => [...rows].sort((a, b) => a.id.localeCompare(b.id));
      expect(byId(cached)).to.deep.equal(byId(read));
    });

    // Decision 0036: under the dataset's lock, the kept rows at the version read there are the heads.
    const headsRead = "select id, revision_id";

    it("checks an acceptance's rows against the kept heads while they are the locked version: no row read or locked", async () => {
      const kept = await loadRows(first);
      let outcome: Awaited<ReturnType<typeof accept>> | undefined;
      const sent = await sentDuring(async () => {
        outcome = await accept(first, (run) => seenUnchangedBy(run, kept));
      });
      expect(outcome?._tag).to.equal("Accepted");
      expect(sent.filter((text) => text.startsWith(headsRead))).to.deep.equal([]);
      // A stale head is still refused from them: RowsChanged, nothing written.
      const again = await loadRows(first);
      const stale = await sentDuring(async () => {
        outcome = await accept(first, (run) => {
          const unchanged = seenUnchangedBy(run, again);
          const [entry, ...rest] = unchanged.rows;
          return { ...unchanged, rows: [{ ...entry!, expectedRevisionId: globalThis.crypto.randomUUID() }, ...rest] };
        });
      });
      expect(outcome?._tag).to.equal("RowsChanged");
      expect(stale.filter((text) => text.startsWith(headsRead))).to.deep.equal([]);
      const byId = (rows: ReadonlyArray<RowRecord>) => [...rows].sort((a, b) => a.id.localeCompare(b.id));
      expect(byId(await loadRows(second))).to.deep.equal(byId(await loadRows(first)));
    });

    it("reads and locks the heads once another process's edit changed the version, and refuses the stale one", async () => {
      const kept = await loadRows(first);
      const edit = await editedBySecond(kept, "edit-heads");
      let outcome: Awaited<ReturnType<typeof accept>> | undefined;
      // The run read its rows before the edit: it expects b's former head.
      const sent = await sentDuring(async () => {
        outcome = await accept(first, (run) => seenUnchangedBy(run, kept));
      });
      expect(outcome?._tag).to.equal("RowsChanged");
      expect(sent.filter((text) => text.startsWith(headsRead))).to.have.length(1);
      const stored = (await loadRows(second)).find((r) => r.rowKey === "b")!;
      expect([stored.revisionId, stored.data]).to.deep.equal([edit.revision.id, edit.row.data]);
    });

    it("with verify, fails an acceptance whose kept heads differ from the stored ones", async () => {
      const verifying = ManagedRuntime.make(
        PostgresStoreLive({ url, schema, poolSize: 2, rowCache: { rows: 100, verify: true } }),
      );
      try {
        const kept = await verifying.runPromise(Effect.flatMap(Storage, (storage) => storage.loadRows(dataset.id)));
        // A head moved behind the store's back, the version left as it was.
        await client.query(
          `update "${schema}".rows set revision_id = gen_random_uuid() where dataset_id = $1 and row_key = 'a'`,
          [dataset.id],
        );
        const failure = await accept(verifying, (run) => seenUnchangedBy(run, kept)).then(
          () => null,
          (error: unknown) => String(error),
        );
        expect(failure).to.match(/heads of the rows kept for dataset .* differ from the stored ones/);
      } finally {
        await verifying.dispose();
      }
    });

    it("with verify, fails a read whose kept rows differ from the stored ones", async () => {
      const verifying = ManagedRuntime.make(
        PostgresStoreLive({ url, schema, poolSize: 2, rowCache: { rows: 100, verify: true } }),
      );
      try {
        await verifying.runPromise(Effect.flatMap(Storage, (storage) => storage.loadRows(dataset.id)));
        // A write behind the store's back that leaves the version as it was.
        await client.query(`update "${schema}".rows set row_key = 'z' where dataset_id = $1 and row_key = 'a'`, [
          dataset.id,
        ]);
        const failure = await verifying
          .runPromise(Effect.flatMap(Storage, (storage) => storage.loadRows(dataset.id)))
          .then(
            () => null,
            (error: unknown) => String(error),
          );
        expect(failure).to.match(/rows kept for dataset .* differ from the stored ones/);
      } finally {
        await verifying.dispose();
      }
    });
  });
});

describe("postgres store: the rows cache's capacity", () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(i) }) as unknown as RowRecord);

  it("makes room from the least recently used dataset", () => {
    const cache = makeRowsCache({ rows: 5 });
    cache.set("a", "1:", rows(3));
    cache.set("b", "1:", rows(2));
    expect(cache.get("a")?.rows).to.have.length(3);
    cache.set("c", "1:", rows(2));
    expect(cache.get("b")).to.equal(undefined);
    expect(cache.get("a")?.version).to.equal("1:");
    expect(cache.get("c")?.version).to.equal("1:");
  });

  it("keeps no dataset larger than its capacity, and nothing at capacity 0", () => {
    const cache = makeRowsCache({ rows: 5 });
    cache.set("a", "1:", rows(6));
    expect(cache.get("a")).to.equal(undefined);
    const off = makeRowsCache({ rows: 0 });
    expect(off.enabled).to.equal(false);
    off.set("a", "1:", []);
    expect(off.get("a")).to.equal(undefined);
  });
});
