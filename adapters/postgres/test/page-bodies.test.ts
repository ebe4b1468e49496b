import { createHash } from "node:crypto";
import { Storage } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import pg from "pg";
import { makeDb, utf8Blob } from "../src/db.js";
import { sendBodies } from "../src/page-bodies.js";
import { aStoreOnItsOwnSchema, whenPostgresReachable } from "./support.js";

// A statement's content-addressed contents (page bodies, page records) travel as one bytea
// parameter, cut by the server at the offsets sent beside it (decision 0036).
const body = (text: string) => ({ sha256: createHash("sha256").update(text).digest("hex"), body: text });
const awkward = ["<p>é ✓ 😀</p>", "", "a\u0000b", "plain"].map(body);

describe("postgres store: a statement's contents in one buffer", () => {
  it("writes each body's UTF-8 at its offset, with its length in bytes", () => {
    const { blob, offsets, lengths } = utf8Blob(awkward.map((b) => b.body));
    expect(lengths).to.deep.equal(awkward.map((b) => Buffer.byteLength(b.body)));
    expect(offsets).to.deep.equal([0, 18, 18, 21]);
    const back = offsets.map((at, i) => blob.subarray(at, at + lengths[i]!).toString("utf8"));
    expect(back).to.deep.equal(awkward.map((b) => b.body));
    expect(blob.length).to.equal(lengths.reduce((a, b) => a + b, 0));
  });
});

await whenPostgresReachable("postgres store: page bodies sent in one parameter", (url) => {
  describe("postgres store: page bodies sent in one parameter", () => {
    const { schema, run } = aStoreOnItsOwnSchema(url);

    it("stores every body as its bytes, past one statement's worth, and adds nothing for a digest stored", async () => {
      await run(Storage);
      const many = [...awkward, ...Array.from({ length: 520 }, (_, i) => body(`<p>page ${i} ${"x".repeat(i)}</p>`))];
      const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path="${schema}"` });
      try {
        const store = (bodies: typeof many) =>
          Effect.runPromise(makeDb(pool).transaction((tx) => Effect.flatten(sendBodies(tx, bodies))));
        await store(many);
        // Again, with a changed text under a stored digest: the stored bytes stay.
        await store([{ ...many[0]!, body: "other" }, body("one more")]);
        const { rows } = await pool.query<{ sha256: string; body: Buffer }>("select sha256, body from page_bodies");
        const stored = new Map(rows.map((row) => [row.sha256, row.body.toString("utf8")]));
        expect(stored.size).to.equal(many.length + 1);
        for (const b of many) expect(stored.get(b.sha256), b.body.slice(0, 20)).to.equal(b.body);
      } finally {
        await pool.end();
      }
    });
  });
});
