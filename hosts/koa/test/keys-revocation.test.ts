import { createHash } from "node:crypto";
import { makeClient } from "@gleaner/conformance";
import { PostgresStoreLive } from "@gleaner/postgres";
import { expect } from "chai";
import pg from "pg";
import { pino } from "pino";
import { type RunningHost, startHost } from "@gleaner/koa";

const url = process.env.GLEANER_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const reachable = async () => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
};

/** Two API processes on one PostgreSQL database: a key revoked through one is refused by the other at once. */
describe("API keys on PostgreSQL: revoked in every process, SHA-256 at rest", function () {
  this.timeout(60_000);
  const schema = `keys_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const hosts: RunningHost[] = [];
  before(async function () {
    if (!(await reachable())) {
      if (process.env.GLEANER_REQUIRE_POSTGRES === "1") throw new Error(`PostgreSQL at ${url} is required`);
      console.log(`      NOT RUN: PostgreSQL at ${url} is not reachable.`);
      this.skip();
    }
    for (let i = 0; i < 2; i++) {
      hosts.push(
        await startHost({
          overrides: { store: PostgresStoreLive({ url, schema }) },
          config: { port: 0, host: "127.0.0.1" },
          logger: pino({ level: "silent" }),
        }),
      );
    }
  });
  after(async () => {
    for (const host of hosts) await host.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect().catch(() => undefined);
    await client.query(`drop schema if exists "${schema}" cascade`).catch(() => undefined);
    await client.end().catch(() => undefined);
  });

  it("is refused by the other process on its next request, with no wait", async () => {
    const [a, b] = hosts as [RunningHost, RunningHost];
    const ownerKey = await a.createKey("two-processes", 5);
    const owner = makeClient(a.url, ownerKey);
    const { key, secret } = (await owner.post("/v1/keys", { name: "leaked" })).body;
    const onB = makeClient(b.url, secret);
    expect((await onB.get("/v1/usage")).status).to.equal(200);
    expect((await owner.request("DELETE", `/v1/keys/${key.id}`)).status).to.equal(204);
    const refused = await onB.get("/v1/usage");
    expect(refused.status).to.equal(401);
    expect(refused.credits).to.equal(0);
    // The owner's other key still works there, and B lists the one key left.
    const listed = await makeClient(b.url, ownerKey).get("/v1/keys");
    expect(listed.status).to.equal(200);
    expect(listed.body.keys.map((k: { name: string | null }) => k.name)).to.deep.equal([null]);
  });

  it("stores each key as its SHA-256 hex, never the key: the api_keys rows read from the database", async () => {
    const [a] = hosts as [RunningHost];
    const first = await a.createKey("at-rest", 5);
    const { key, secret } = (await makeClient(a.url, first).post("/v1/keys", { name: "at-rest" })).body;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select k.* from "${schema}".api_keys k join "${schema}".owners o on o.id = k.owner_id where o.name = 'at-rest'`,
      );
      const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
      expect(rows.map((row) => row.hash).sort()).to.deep.equal([sha256(first), sha256(secret)].sort());
      expect(rows.find((row) => row.id === key.id)?.hash).to.equal(sha256(secret));
      const stored = JSON.stringify(rows);
      expect(stored).to.not.contain(first).and.not.contain(secret);
    } finally {
      await client.end();
    }
  });
});
