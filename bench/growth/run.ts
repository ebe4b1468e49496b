/**
 * bench:growth (issue 35, "bounded by data, not by runs"): one dataset over the 50-page books site
 * (1000 rows), run N times with `--changes` prices changed before each run (5% by default), retention
 * shortened to nothing: after each run every finished run's record is pruned (Storage.pruneRunRecords,
 * what GLEANER_RETENTION_DAYS does once a record is old enough). Reports what stays per run in the
 * steady state (the second half of the runs): on PostgreSQL the live bytes of every table (the sum of
 * its rows' sizes, bloat aside) and the schema's size on disk after VACUUM; on the memory store the
 * heap after GC. Goal: ≤ 3 KB per changed row + 5 KB per run; the memory store's heap flat when
 * nothing changes.
 *
 *   npm run bench:growth -w @gleaner/bench [-- --store memory|postgres --runs 200 --every 20 --changes 50]
 */
import { startBooksSite } from "@gleaner/conformance";
import { Storage, type StorageService } from "@gleaner/core";
import { startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import { PostgresStoreLive } from "@gleaner/postgres";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import pg from "pg";
import { choiceArg, positiveIntegerArg } from "../args.js";
import { benchHostConfig } from "../bench-host.js";
import { booksDataset } from "../run-books/books.js";

const store = choiceArg("store", ["postgres", "memory"]);
const runs = positiveIntegerArg("runs", 200);
const every = positiveIntegerArg("every", 20);
const changesAt = process.argv.indexOf("--changes");
const changes = changesAt >= 0 ? Number(process.argv[changesAt + 1]) : 50;
if (!Number.isInteger(changes) || changes < 0 || changes > 1000) throw new Error("--changes must be 0 to 1000");
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc (the npm script does)");

const url = process.env.GLEANER_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const schema = `growth_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
let storage: StorageService | undefined;
const layer = (store === "postgres" ? PostgresStoreLive({ url, schema }) : MemoryStoreLive).pipe(
  Layer.tap((context) =>
    Effect.sync(() => {
      storage = Context.get(context, Storage);
    }),
  ),
);

const site = await startBooksSite();
const host = await startHost({ config: benchHostConfig, overrides: { store: layer } });
const client = store === "postgres" ? new pg.Client({ connectionString: url }) : null;
await client?.connect();
const key = await host.createKey("growth", runs * 60);
const call = async (method: string, path: string, body?: unknown): Promise<any> => {
  const response = await fetch(new URL(path, host.url), {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return response.json();
};

/** What the store holds now: live bytes and bytes on disk (PostgreSQL), or the heap after GC (memory). */
const measure = async (): Promise<{ live: number; disk: number }> => {
  if (!client) {
    gc();
    const heap = process.memoryUsage().heapUsed;
    return { live: heap, disk: heap };
  }
  await client.query(`vacuum`);
  const tables = await client.query<{ name: string }>("select tablename as name from pg_tables where schemaname = $1", [
    schema,
  ]);
  let live = 0;
  let disk = 0;
  for (const { name } of tables.rows) {
    const table = `"${schema}"."${name}"`;
    const [row] = (
      await client.query<{ live: string; disk: string }>(
        `select coalesce(sum(pg_column_size(t.*)), 0)::bigint as live, pg_total_relation_size('${table}')::bigint as disk from ${table} t`,
      )
    ).rows;
    live += Number(row?.live ?? 0);
    disk += Number(row?.disk ?? 0);
  }
  return { live, disk };
};

try {
  const { dataset } = await call("POST", "/v1/datasets", booksDataset(site.url));
  const samples: Array<{ n: number; live: number; disk: number }> = [];
  console.log(`store ${store}: ${runs} runs of 1000 rows, ${changes} prices changed before each, records pruned`);
  console.log(" run   live KB    disk KB");
  for (let n = 1; n <= runs; n++) {
    for (let k = 0; k < changes; k++) {
      const book = site.books[(n * changes + k) % site.books.length]!;
      site.setPrice(book.book_id, `£${(10 + ((n * 7 + k) % 90)).toFixed(2)}`);
    }
    const { runId } = await call("POST", `/v1/datasets/${dataset.id}/runs`);
    for (;;) {
      const { run } = await call("GET", `/v1/runs/${runId}`);
      if (run.status === "succeeded") break;
      if (run.status !== "queued" && run.status !== "running") throw new Error(`run ${n}: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Effect.runPromise(storage!.pruneRunRecords(new Date().toISOString(), 10_000));
    // The fixture site logs every request it serves; that is the bench's memory, not Gleaner's.
    site.clearRequests();
    if (n % every === 0 || n === 1) {
      const size = await measure();
      samples.push({ n, ...size });
      console.log(
        `${String(n).padStart(4)} ${(size.live / 1024).toFixed(0).padStart(9)} ${(size.disk / 1024).toFixed(0).padStart(10)}`,
      );
    }
  }
  // The steady state: from the middle sample to the last.
  const from = samples[Math.floor(samples.length / 2)]!;
  const to = samples[samples.length - 1]!;
  const perRun = (a: number, b: number) => (b - a) / (to.n - from.n);
  const live = perRun(from.live, to.live);
  const disk = perRun(from.disk, to.disk);
  const perChanged = (bytes: number) =>
    changes > 0 ? `, ${(bytes / changes / 1024).toFixed(2)} KB per changed row` : "";
  console.log(
    `steady state, runs ${from.n}–${to.n}: ${store === "postgres" ? "live" : "heap"} ${(live / 1024).toFixed(1)} KB per run${perChanged(live)}` +
      (store === "postgres" ? `; on disk ${(disk / 1024).toFixed(1)} KB per run${perChanged(disk)}` : ""),
  );
  console.log(`goal: ≤ ${(3 * changes + 5).toFixed(0)} KB per run (3 KB per changed row + 5 KB)`);
} finally {
  await host.close();
  await site.close();
  if (client) {
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
}
process.exit(0);
