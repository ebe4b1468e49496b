import { makeClient } from "@gleaner/conformance";
import { type RunningHost, startHost } from "@gleaner/koa";
import { PostgresStoreLive } from "@gleaner/postgres";
import { expect } from "chai";
import { admin, ownDatabase } from "./support/postgres-admin.js";
import { pino } from "pino";
import { freePort } from "./support/free-port.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The store's connection pool on /metrics (issue 37, "database pool use and errors"): connections by
 * state, and the connections the database drops counted as errors. A database of the test's own, so
 * terminating its backends touches no one else's.
 */
describe("Prometheus metrics: the PostgreSQL store's connection pool", function () {
  this.timeout(60_000);
  const database = `gleaner_pool_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  let host: RunningHost | undefined;
  let metricsUrl = "";
  let reachable = false;
  const scrape = async (): Promise<Map<string, number>> => {
    const text = await (await fetch(metricsUrl)).text();
    return new Map(
      text
        .split("\n")
        .filter((line) => line.startsWith("gleaner_db_"))
        .map((line) => [line.slice(0, line.lastIndexOf(" ")), Number(line.slice(line.lastIndexOf(" ") + 1))]),
    );
  };

  before(async function () {
    const ownUrl = await ownDatabase(this, database);
    reachable = true;
    const url = ownUrl;
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    host = await startHost({
      overrides: { store: PostgresStoreLive({ url: url.href }) },
      config: { port: 0, host: "127.0.0.1", metrics: { host: "127.0.0.1", port } },
      logger: pino({ level: "silent" }),
    });
  });
  after(async () => {
    await host?.close();
    if (reachable) await admin(`drop database if exists ${database} with (force)`);
  });

  it("shows the pool's connections by state, and counts the connections the database drops", async () => {
    const client = makeClient(host!.url, await host!.createKey("pool", 10));
    expect((await client.get("/v1/datasets")).status).to.equal(200);
    const before = await scrape();
    expect(before.get('gleaner_db_connections{state="idle"}')).to.be.at.least(1);
    expect(before.get('gleaner_db_connections{state="in_use"}')).to.be.at.least(0);
    // Waiting counts a request while its new connection is opened: the scrape's own queue read may be one.
    expect(before.get('gleaner_db_connections{state="waiting"}')).to.be.at.least(0);
    expect(before.get("gleaner_db_errors_total")).to.equal(0);

    const idle = before.get('gleaner_db_connections{state="idle"}') ?? 0;
    const [{ terminated }] = (await admin(
      `select count(*)::int as terminated from (select pg_terminate_backend(pid) from pg_stat_activity
        where datname = '${database}' and application_name = 'gleaner') t`,
    )) as [{ terminated: number }];
    expect(terminated).to.be.at.least(idle);
    // The pool hears each idle connection's end as an error event, then discards it.
    let after = await scrape();
    for (let i = 0; i < 50 && (after.get("gleaner_db_errors_total") ?? 0) < idle; i++) {
      await sleep(100);
      after = await scrape();
    }
    expect(after.get("gleaner_db_errors_total")).to.be.at.least(idle);
    // The next request opens a new connection.
    expect((await client.get("/v1/datasets")).status).to.equal(200);
    expect((await scrape()).get('gleaner_db_connections{state="idle"}')).to.be.at.least(1);
  });
});
