import { expect } from "chai";
import * as Effect from "effect/Effect";
import pg from "pg";
import { makeDb } from "../src/db.js";
import { whenPostgresReachable } from "./support.js";

await whenPostgresReachable("postgres store: prepared statements", (url) => {
  describe("postgres store: prepared statements", () => {
    // One connection, so every statement below runs on the connection whose prepared statements are read.
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    after(() => pool.end());

    it("prepares a statement once per connection and runs it again by name, in and out of transactions", async () => {
      const db = makeDb(pool);
      const text = "select $1::int + 1 as n -- prepared-statements.test";
      const answers = [
        await Effect.runPromise(db.query<{ n: number }>(text, [1])),
        await Effect.runPromise(db.query<{ n: number }>(text, [2])),
        await Effect.runPromise(db.transaction((tx) => tx.query<{ n: number }>(text, [3]))),
      ];
      expect(answers.map(([row]) => row?.n)).to.deep.equal([2, 3, 4]);
      const { rows } = await pool.query<{ name: string; statement: string }>(
        "select name, statement from pg_prepared_statements where statement = $1",
        [text],
      );
      expect(rows).to.have.length(1);
    });
  });
});
