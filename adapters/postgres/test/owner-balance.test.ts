import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { after, describe, it } from "mocha";
import pg from "pg";
import { applyMigrations, loadMigrations } from "../src/index.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

/** Migration 0014: the owner row keeps the ledger's sum, kept by the database on every ledger insert. */
await whenPostgresReachable("postgres owner balance", (url) => {
  describe("postgres owner balance (migration 0014)", () => {
    const pools: pg.Pool[] = [];
    const schemas: string[] = [];
    after(async () => {
      await Promise.all(pools.map((pool) => pool.end()));
      for (const schema of schemas) await dropSchema(url, schema);
    });
    const schemaAt = async (below?: number) => {
      const schema = freshSchema("gl_balance_");
      schemas.push(schema);
      const pool = new pg.Pool({ connectionString: url, max: 8, options: `-c search_path=${schema}` });
      pools.push(pool);
      const migrations = await loadMigrations();
      await applyMigrations(pool, schema, below ? migrations.filter((m) => m.version < below) : migrations);
      return { pool, schema, migrations };
    };
    const anOwner = async (pool: pg.Pool) => {
      const id = randomUUID();
      await pool.query("insert into owners (id, name, created_at) values ($1, $2, now())", [id, `o-${id}`]);
      return id;
    };
    const grant = (pool: pg.Pool, ownerId: string, amount: number) =>
      pool.query(
        `insert into ledger_entries (id, owner_id, kind, amount, run_id, dataset_id, pages, created_at)
         values ($1, $2, 'grant', $3, null, null, null, now())`,
        [randomUUID(), ownerId, amount],
      );
    const balances = async (pool: pg.Pool, ownerId: string) => {
      const { rows } = await pool.query<{ kept: string; sum: string }>(
        `select o.balance::text as kept, (select coalesce(sum(amount), 0) from ledger_entries where owner_id = o.id)::text as sum
           from owners o where o.id = $1`,
        [ownerId],
      );
      return rows[0]!;
    };

    it("starts every existing owner at its ledger's sum", async () => {
      const { pool, schema, migrations } = await schemaAt(14);
      const owner = await anOwner(pool);
      const none = await anOwner(pool);
      await grant(pool, owner, 50);
      await grant(pool, owner, -7);
      await applyMigrations(pool, schema, migrations);
      expect(await balances(pool, owner)).to.deep.equal({ kept: "43", sum: "43" });
      expect(await balances(pool, none)).to.deep.equal({ kept: "0", sum: "0" });
    });

    it("keeps the sum through many concurrent inserts, and refuses to change or delete an entry", async () => {
      const { pool } = await schemaAt();
      const owner = await anOwner(pool);
      await Promise.all(Array.from({ length: 40 }, (_, i) => grant(pool, owner, i % 3 === 0 ? -1 : 5)));
      const { kept, sum } = await balances(pool, owner);
      expect(kept).to.equal(sum);
      expect(Number(kept)).to.equal(14 * -1 + 26 * 5);
      for (const change of ["update ledger_entries set amount = 1000", "delete from ledger_entries"]) {
        await pool.query(change).then(
          () => expect.fail(`${change} was allowed`),
          (error: Error) => expect(error.message).to.contain("append-only"),
        );
      }
      expect(await balances(pool, owner)).to.deep.equal({ kept, sum });
    });
  });
});
