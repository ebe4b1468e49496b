import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import pg from "pg";
import { makeDb } from "../src/db.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

await whenPostgresReachable("postgres store: statements sent ahead in one transaction", (url) => {
  describe("postgres store: statements sent ahead in one transaction", () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const count = async (table: string) =>
      Number((await pool.query(`select count(*) from "${schema}".${table}`)).rows[0].count);
    before(async () => {
      await pool.query(`create schema "${schema}"`);
      await pool.query(`create table "${schema}".sent_probe (n integer primary key)`);
    });
    after(async () => {
      await pool.end();
      await dropSchema(url, schema);
    });

    /** A transaction on each of the pool's two connections at once: each inserts a row and commits. */
    const expectEveryConnectionUsable = async (db: ReturnType<typeof makeDb>) => {
      const both = await Effect.runPromiseExit(
        Effect.all(
          [1, 2].map((n) =>
            db.transaction((tx) => tx.query(`insert into "${schema}".sent_probe (n) values ($1)`, [n])),
          ),
          { concurrency: 2 },
        ),
      );
      expect(Exit.isSuccess(both)).to.equal(true);
    };

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
      expect(await count("sent_probe")).to.equal(0);
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
      expect(await count("sent_probe")).to.equal(3);
    });

    it("queues a COPY with the statements sent around it, and rolls back whole when its data is refused", async () => {
      const db = makeDb(pool);
      const insert = `insert into "${schema}".sent_probe (n) values ($1)`;
      const copy = `copy "${schema}".sent_probe (n) from stdin`;
      await pool.query(`delete from "${schema}".sent_probe`);
      const refused = await Effect.runPromiseExit(
        db.transaction((tx) =>
          Effect.gen(function* () {
            const before = yield* tx.send(insert, [10]);
            const copied = yield* tx.copyFrom(copy, [Buffer.from("11\n"), Buffer.from("not a number\n")]);
            const after = yield* tx.send(insert, [12]);
            yield* before;
            yield* copied;
            yield* after;
          }),
        ),
      );
      expect(Exit.isFailure(refused), "the line that is not an integer fails the transaction").to.equal(true);
      expect(await count("sent_probe")).to.equal(0);
      const committed = await Effect.runPromiseExit(
        db.transaction((tx) =>
          Effect.gen(function* () {
            const sent = [
              yield* tx.send(insert, [1]),
              yield* tx.copyFrom(copy, [Buffer.from("2\n"), Buffer.from("3\n")]),
              yield* tx.send(insert, [4]),
            ];
            yield* Effect.all(sent);
          }),
        ),
      );
      expect(Exit.isSuccess(committed)).to.equal(true);
      expect(await count("sent_probe")).to.equal(4);
    });

    it("fails the transaction when a streamed COPY's chunk fails to encode, ends the COPY, and leaves the connection usable", async () => {
      const db = makeDb(pool);
      const copy = `copy "${schema}".sent_probe (n) from stdin`;
      await pool.query(`delete from "${schema}".sent_probe`);
      function* chunks() {
        yield Buffer.from("1\n2\n");
        throw new Error("COPY: 3 is not a uuid.");
      }
      const exit = await Effect.runPromiseExit(db.transaction((tx) => Effect.flatten(tx.copyFrom(copy, chunks()))));
      expect(Exit.isFailure(exit)).to.equal(true);
      expect(String(Exit.isFailure(exit) && exit.cause)).to.match(
        /StorageFailure[\s\S]*encoding copy[\s\S]*not a uuid/,
      );
      expect(await count("sent_probe"), "the chunk already sent is rolled back").to.equal(0);
      // The pool's connections are not left inside a COPY: a transaction on each of them works.
      await expectEveryConnectionUsable(makeDb(pool));
      expect(await count("sent_probe")).to.equal(2);
    });

    it("fails the transaction with the server's reason when it refuses a streamed COPY's first chunk while more are still written", async () => {
      const db = makeDb(pool);
      const copy = `copy "${schema}".sent_probe (n) from stdin`;
      await pool.query(`delete from "${schema}".sent_probe`);
      // ~20 MB behind the refused line, written while a statement before the COPY still runs: once the
      // COPY starts they fill the socket, and the server refuses the COPY while they wait to be sent.
      const filler = Buffer.from("7\n".repeat(32 * 1024));
      function* chunks() {
        yield Buffer.from("1\nnot a number\n");
        for (let i = 0; i < 300; i++) yield filler;
      }
      const exit = await Effect.runPromiseExit(
        db.transaction((tx) =>
          Effect.gen(function* () {
            const slow = yield* tx.send("select pg_sleep(0.3)");
            const copied = yield* tx.copyFrom(copy, chunks());
            yield* slow;
            yield* copied;
          }),
        ),
      );
      expect(Exit.isFailure(exit)).to.equal(true);
      expect(String(Exit.isFailure(exit) && exit.cause)).to.match(/StorageFailure[\s\S]*invalid input syntax/);
      expect(await count("sent_probe")).to.equal(0);
      // The process is still here, and so is every connection of the pool.
      await expectEveryConnectionUsable(makeDb(pool));
      expect(await count("sent_probe")).to.equal(2);
    });

    it("streams a COPY: the server has read its first chunks while the host still encodes the last", async () => {
      const db = makeDb(pool);
      const table = `"${schema}".sent_probe`;
      await pool.query(`delete from ${table}`);
      const watcher = new pg.Client({ connectionString: url });
      await watcher.connect();
      // What the server reports of COPYs in progress (pg_stat_progress_copy, PostgreSQL 14+), polled
      // from another connection while the chunks are produced.
      let serverRead = 0;
      let polling = true;
      const poll = (async () => {
        while (polling) {
          const { rows } = await watcher.query<{ n: string }>(
            "select coalesce(max(tuples_processed), 0)::text as n from pg_stat_progress_copy where command = 'COPY FROM'",
          );
          serverRead = Math.max(serverRead, Number(rows[0]!.n));
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      const chunkCount = 200;
      let seenBeforeLast = 0;
      function* chunks() {
        for (let chunk = 0; chunk < chunkCount; chunk++) {
          // Encoding takes time: 1 ms of work per chunk.
          const until = performance.now() + 1;
          while (performance.now() < until);
          if (chunk === chunkCount - 1) seenBeforeLast = serverRead;
          yield Buffer.from(`${chunk}\n`);
        }
      }
      try {
        await Effect.runPromise(
          db.transaction((tx) => Effect.flatten(tx.copyFrom(`copy ${table} (n) from stdin`, chunks()))),
        );
      } finally {
        polling = false;
        await poll;
        await watcher.end();
      }
      expect(await count("sent_probe")).to.equal(chunkCount);
      expect(seenBeforeLast, "tuples the server had read before the last chunk was encoded").to.be.greaterThan(0);
    });

    it("answers a COPY sent behind a failed statement at once, failed with it: nothing waits for data never sent", async () => {
      const db = makeDb(pool);
      const insert = `insert into "${schema}".sent_probe (n) values ($1)`;
      const copy = `copy "${schema}".sent_probe (n) from stdin`;
      await pool.query(`delete from "${schema}".sent_probe`);
      await pool.query(`insert into "${schema}".sent_probe (n) values (1)`);
      const exit = await Effect.runPromiseExit(
        db.transaction((tx) =>
          Effect.gen(function* () {
            const duplicate = yield* tx.send(insert, [1]);
            // Answers once the statement before it has failed (it is never dispatched), not never.
            const copied = yield* tx.copyFrom(copy, [Buffer.from("5\n6\n")]);
            yield* duplicate;
            yield* copied;
          }),
        ),
      );
      expect(Exit.isFailure(exit)).to.equal(true);
      expect(await count("sent_probe")).to.equal(1);
    });
  });
});
