import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import pg from "pg";
import { makeDb } from "../src/db.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

// An acceptance sends its writes one after another without waiting (Sql.send): a failure among
// them must roll the whole transaction back, and nothing sent behind it may run after the ROLLBACK.
await whenPostgresReachable("postgres store: statements sent ahead in one transaction", (url) => {
  describe("postgres store: statements sent ahead in one transaction", () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const count = async () => Number((await pool.query(`select count(*) from "${schema}".sent_probe`)).rows[0].count);
    before(async () => {
      await pool.query(`create schema "${schema}"`);
      await pool.query(`create table "${schema}".sent_probe (n integer primary key)`);
    });
    after(async () => {
      await pool.end();
      await dropSchema(url, schema);
    });

    it("rolls back every statement of a transaction when one sent ahead fails, and runs none after it", async () => {
      const db = makeDb(pool);
      const insert = `insert into "${schema}".sent_probe (n) values ($1)`;
      const exit = await Effect.runPromiseExit(
        db.transaction((tx) =>
          Effect.gen(function* () {
            const first = yield* tx.send(insert, [1]);
            const duplicate = yield* tx.send(insert, [1]);
            const third = yield* tx.send(insert, [3]);
            yield* first;
            yield* duplicate;
            yield* third;
          }),
        ),
      );
      expect(Exit.isFailure(exit), "the duplicate key fails the transaction").to.equal(true);
      // Had the third been dispatched after the ROLLBACK, it would have committed on its own.
      expect(await count()).to.equal(0);
      const committed = await Effect.runPromiseExit(
        db.transaction((tx) =>
          Effect.gen(function* () {
            const sent = [yield* tx.send(insert, [1]), yield* tx.send(insert, [2])];
            yield* tx.query(insert, [3]);
            yield* Effect.all(sent);
          }),
        ),
      );
      expect(Exit.isSuccess(committed)).to.equal(true);
      expect(await count()).to.equal(3);
    });

    it("fails a transaction whose statement failed unawaited: COMMIT then rolls back, and that is no success", async () => {
      const db = makeDb(pool);
      const insert = `insert into "${schema}".sent_probe (n) values ($1)`;
      await pool.query(`delete from "${schema}".sent_probe`);
      const exit = await Effect.runPromiseExit(
        db.transaction((tx) =>
          Effect.gen(function* () {
            yield* tx.query(insert, [7]);
            // Sent and never awaited: a caller's slip the commit must still catch.
            yield* tx.send(insert, [7]);
          }),
        ),
      );
      expect(Exit.isFailure(exit), "the transaction answers failure").to.equal(true);
      expect(await count()).to.equal(0);
    });
  });
});
