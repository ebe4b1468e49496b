import { expect } from "chai";
import * as Effect from "effect/Effect";
import pg from "pg";
import { copyBinaryWriter } from "../src/copy-binary.js";
import { makeDb } from "../src/db.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

// The binary COPY encoder (decision 0029) against the server's own reading of each type: what it
// writes must read back, as text, as PostgreSQL would have parsed the same value written as text.
await whenPostgresReachable("postgres store: binary COPY", (url) => {
  describe("postgres store: binary COPY", () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const table = `"${schema}".copy_probe`;
    before(async () => {
      await pool.query(`create schema "${schema}"`);
      await pool.query(
        `create table ${table} (u uuid, n bigint, i integer, t text, j json, at timestamptz, tags text[])`,
      );
    });
    after(async () => {
      await pool.end();
      await dropSchema(url, schema);
    });

    it("writes uuids, integers, text, json, times to the microsecond and text arrays as the server reads them", async () => {
      const awkward = 'tab\there, line\nbreak, backslash \\ and \\N, quote " {brace}, ünï ✓ 𝄞';
      const rows = [
        {
          u: globalThis.crypto.randomUUID(),
          n: 9_007_199_254_740_991,
          i: -7,
          t: awkward,
          j: { [awkward]: [1.5, null, true], nul: "\u0000" },
          at: "2026-11-23T09:45:01.123456+02:00",
          tags: [awkward, "", "{x,y}"],
        },
        { u: null, n: 0, i: 0, t: null, j: null, at: "1999-12-31T23:59:59.999Z", tags: [] },
        // Negative 64-bit values: an int8 and a time before PostgreSQL's epoch, to the microsecond.
        { u: null, n: -9_007_199_254_740_991, i: 1, t: "", j: [], at: "1969-07-20T20:17:40.000001Z", tags: [""] },
      ];
      const copy = copyBinaryWriter(16);
      // One chunk per tuple (take), as an acceptance streams its COPY: the server reads them as one.
      const chunks = rows.map((row, i) => {
        copy.tuple(7);
        copy.uuid(row.u);
        copy.int8(row.n);
        copy.int4(row.i);
        copy.text(row.t);
        copy.json(row.j);
        copy.timestamptz(row.at);
        copy.textArray(row.tags);
        return i < rows.length - 1 ? copy.take() : copy.end();
      });
      await Effect.runPromise(
        makeDb(pool).transaction((tx) =>
          Effect.flatten(
            tx.copyFrom(`copy ${table} (u, n, i, t, j, at, tags) from stdin with (format binary)`, chunks),
          ),
        ),
      );
      const { rows: stored } = await pool.query(
        `select u::text, n::text, i, t, j::text as j, (at = $1::timestamptz) as at1, (at = $2::timestamptz) as at2,
                (at = $3::timestamptz) as at3, tags
           from ${table} order by n desc`,
        [rows[0]!.at, rows[1]!.at, rows[2]!.at],
      );
      expect(stored[0]).to.deep.equal({
        u: rows[0]!.u,
        n: "9007199254740991",
        i: -7,
        t: awkward,
        j: JSON.stringify(rows[0]!.j),
        at1: true,
        at2: false,
        at3: false,
        tags: rows[0]!.tags,
      });
      expect(stored[1]).to.deep.equal({
        u: null,
        n: "0",
        i: 0,
        t: null,
        j: null,
        at1: false,
        at2: true,
        at3: false,
        tags: [],
      });
      expect(stored[2]).to.deep.equal({
        u: null,
        n: "-9007199254740991",
        i: 1,
        t: "",
        j: "[]",
        at1: false,
        at2: false,
        at3: true,
        tags: [""],
      });
    });

    it("takes as a uuid exactly what PostgreSQL's common uuid forms are, and writes its 16 bytes", () => {
      const form = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
      const canonical = globalThis.crypto.randomUUID();
      const hex = canonical.replaceAll("-", "");
      const variants = new Set([canonical, canonical.toUpperCase(), hex, `{${canonical}}`, "", "-", "x".repeat(32)]);
      // Every one-character change of the canonical and the bare form, and a dash at every place.
      for (const base of [canonical, hex]) {
        for (let i = 0; i <= base.length; i++) {
          for (const c of ["-", "g", "A", "0", "é", " "]) {
            variants.add(base.slice(0, i) + c + base.slice(i));
            variants.add(base.slice(0, i) + c + base.slice(i + 1));
          }
          variants.add(base.slice(0, i) + base.slice(i + 1));
        }
      }
      for (const value of variants) {
        const copy = copyBinaryWriter(16);
        copy.tuple(1);
        if (form.test(value)) {
          copy.uuid(value);
          const field = copy.end().subarray(19 + 2, 19 + 2 + 20);
          expect(field.readInt32BE(0), value).to.equal(16);
          expect(field.subarray(4).toString("hex"), value).to.equal(value.replaceAll("-", "").toLowerCase());
        } else expect(() => copy.uuid(value), value).to.throw(/not a uuid/);
      }
      expect(variants.size).to.be.greaterThan(800);
    });

    it("throws on a value its column cannot hold, before anything is sent", () => {
      const copy = copyBinaryWriter();
      copy.tuple(1);
      expect(() => copy.uuid("not-a-uuid")).to.throw(/not a uuid/);
      expect(() => copy.timestamptz("yesterday")).to.throw(/not an ISO 8601 time/);
      for (const value of [2 ** 31, -(2 ** 31) - 1, 1.5]) expect(() => copy.int4(value)).to.throw(/32-bit integer/);
      for (const value of [2 ** 53, 0.5]) expect(() => copy.int8(value)).to.throw(/safe integer/);
    });
  });
});
