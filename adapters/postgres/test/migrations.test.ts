import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { after, describe, it } from "mocha";
import pg from "pg";
import { applyMigrations, assertSchemaName, loadMigrations, type Migration } from "../src/index.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

describe("postgres migrations: files", () => {
  it("loads the bundled migrations in version order, each with a checksum", async () => {
    const migrations = await loadMigrations();
    const versions = migrations.map((m) => m.version);
    // Ascending and unique; a number may be missing while a parallel branch holds it (0011, issue 17).
    expect(versions).to.deep.equal([...new Set(versions)].sort((a, b) => a - b));
    expect(versions[0]).to.equal(1);
    expect(migrations[0]?.name).to.equal("init");
    for (const m of migrations) expect(m.checksum).to.match(/^[0-9a-f]{64}$/);
  });

  it("refuses a file not named NNNN_name.sql and a repeated version", async () => {
    const badName = await mkdtemp(join(tmpdir(), "gleaner-migrations-"));
    await writeFile(join(badName, "init.sql"), "select 1;");
    await loadMigrations(badName).then(
      () => expect.fail("a stray file name was accepted"),
      (error: Error) => expect(error.message).to.contain("NNNN_name.sql"),
    );
    const twice = await mkdtemp(join(tmpdir(), "gleaner-migrations-"));
    await writeFile(join(twice, "0001_a.sql"), "select 1;");
    await writeFile(join(twice, "0001_b.sql"), "select 2;");
    await loadMigrations(twice).then(
      () => expect.fail("a repeated version was accepted"),
      (error: Error) => expect(error.message).to.contain("version 1"),
    );
  });

  it("accepts only plain lowercase schema names (they are interpolated as identifiers)", () => {
    expect(assertSchemaName("gleaner")).to.equal("gleaner");
    for (const bad of ["", "Gleaner", 'x"; drop table owners; --', "1abc", "a-b"]) {
      expect(() => assertSchemaName(bad)).to.throw(/must match/);
    }
  });
});

await whenPostgresReachable("postgres migrations: runner", (url) => {
  describe("postgres migrations: runner", () => {
    const pools: pg.Pool[] = [];
    const schemas: string[] = [];
    const poolFor = (schema: string, max = 10) => {
      schemas.push(schema);
      const pool = new pg.Pool({ connectionString: url, max });
      pools.push(pool);
      return pool;
    };
    after(async () => {
      await Promise.all(pools.map((pool) => pool.end()));
      for (const schema of new Set(schemas)) await dropSchema(url, schema);
    });

    const versions = async (pool: pg.Pool, schema: string) =>
      (
        await pool.query<{ version: number }>(`select version from "${schema}".schema_migrations order by version`)
      ).rows.map((row) => row.version);

    it("creates the schema, applies every migration once, and a second start applies nothing", async () => {
      const schema = freshSchema("gl_migrate_");
      const pool = poolFor(schema);
      const migrations = await loadMigrations();
      const first = await applyMigrations(pool, schema, migrations);
      expect(first.applied).to.deep.equal(migrations.map((m) => m.version));
      const second = await applyMigrations(pool, schema, migrations);
      expect(second.applied).to.deep.equal([]);
      expect(await versions(pool, schema)).to.deep.equal(migrations.map((m) => m.version));
      const tables = await pool.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = $1 order by table_name",
        [schema],
      );
      expect(tables.rows.map((r) => r.table_name)).to.include.members([
        "datasets",
        "ledger_entries",
        "revisions",
        "runs",
      ]);
    });

    it("lets only one of several processes starting at once migrate; the others wait and apply nothing", async () => {
      const schema = freshSchema("gl_migrate_");
      const migrations = await loadMigrations();
      // Separate pools: separate sessions, as separate processes would have.
      const starters = Array.from({ length: 6 }, () => poolFor(schema, 1));
      const reports = await Promise.all(starters.map((pool) => applyMigrations(pool, schema, migrations)));
      const applying = reports.filter((r) => r.applied.length > 0);
      expect(applying).to.have.length(1);
      expect(applying[0]?.applied).to.deep.equal(migrations.map((m) => m.version));
      expect(await versions(starters[0]!, schema)).to.deep.equal(migrations.map((m) => m.version));
    });

    it("applies new versions in order on top of the recorded ones, and rolls a failing one back whole", async () => {
      const schema = freshSchema("gl_migrate_");
      const pool = poolFor(schema);
      const make = (version: number, sql: string): Migration => ({ version, name: `m${version}`, sql, checksum: sql });
      await applyMigrations(pool, schema, [make(1, "create table a (x int);")]);
      const report = await applyMigrations(pool, schema, [
        make(3, "insert into a values (3);"),
        make(1, "create table a (x int);"),
        make(2, "insert into a values (2);"),
      ]);
      expect(report.applied).to.deep.equal([2, 3]);
      const rows = await pool.query<{ x: number }>(`select x from "${schema}".a order by x`);
      expect(rows.rows.map((r) => r.x)).to.deep.equal([2, 3]);

      await applyMigrations(pool, schema, [
        make(4, "insert into a values (4);"),
        make(5, "insert into missing_table values (5);"),
      ]).then(
        () => expect.fail("a failing migration was reported as applied"),
        (error: Error) => expect(error.message).to.contain("missing_table"),
      );
      expect(await versions(pool, schema)).to.deep.equal([1, 2, 3]);
      const after4 = await pool.query<{ x: number }>(`select x from "${schema}".a order by x`);
      expect(after4.rows.map((r) => r.x)).to.deep.equal([2, 3]);
    });

    it("refuses to start when an applied migration's file was edited", async () => {
      const schema = freshSchema("gl_migrate_");
      const pool = poolFor(schema);
      await applyMigrations(pool, schema, [{ version: 1, name: "a", sql: "select 1;", checksum: "one" }]);
      await applyMigrations(pool, schema, [{ version: 1, name: "a", sql: "select 2;", checksum: "two" }]).then(
        () => expect.fail("an edited migration was accepted"),
        (error: Error) => expect(error.message).to.contain("different contents"),
      );
    });
  });
});
