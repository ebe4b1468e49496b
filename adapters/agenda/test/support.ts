import { type DatasetId, type OwnerId, RunQueue, type RunId, type RunJob, type RunQueueService } from "@gleaner/core";
import { expect } from "chai";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";
import { describe, it } from "mocha";
import pg from "pg";

/** GLEANER_POSTGRES_URL, else the local trust-auth server as user postgres. */
export const postgresUrl = (): string => process.env.GLEANER_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const probe = async (url: string): Promise<string | null> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
};

/**
 * Registers a set only when PostgreSQL answers; otherwise prints why it did not run and registers
 * nothing. With GLEANER_REQUIRE_POSTGRES=1 (CI) an unreachable server is a failing test instead.
 */
export const whenPostgresReachable = async (setName: string, register: (url: string) => void): Promise<void> => {
  const url = postgresUrl();
  const reason = await probe(url);
  if (reason === null) return register(url);
  const where = url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
  if (process.env.GLEANER_REQUIRE_POSTGRES === "1") {
    describe(setName, () => {
      it("needs a reachable PostgreSQL (GLEANER_REQUIRE_POSTGRES=1)", () => {
        throw new Error(`GLEANER_REQUIRE_POSTGRES=1 but PostgreSQL at ${where} is not reachable: ${reason}`);
      });
    });
    return;
  }
  console.log(
    `[agenda] NOT RUN: ${setName} — PostgreSQL at ${where} is not reachable (${reason}). ` +
      "Set GLEANER_POSTGRES_URL to run it (GLEANER_REQUIRE_POSTGRES=1 makes this a failure).",
  );
};

/** A name of its own per test run: the database is shared, the schema is not. */
export const freshName = (prefix: string): string =>
  `${prefix}${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

export const sql = async <R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
};

export const dropSchema = (url: string, schema: string) => sql(url, `drop schema if exists "${schema}" cascade`);

/** A built layer and the scope that releases it. */
export interface Built {
  readonly queue: RunQueueService;
  /** Runs a scoped effect (consume, consumeRoutines) in a scope of its own; returns its closer. */
  readonly scoped: (effect: Effect.Effect<void, never, Scope.Scope>) => Promise<() => Promise<void>>;
  readonly close: () => Promise<void>;
}

export const build = async (layer: Layer.Layer<RunQueue, unknown>): Promise<Built> => {
  const scope = await Effect.runPromise(Scope.make());
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope));
  return {
    queue: Context.get(context, RunQueue),
    scoped: async (effect) => {
      const inner = await Effect.runPromise(Scope.fork(scope, "sequential"));
      await Effect.runPromise(Scope.extend(effect, inner));
      return () => Effect.runPromise(Scope.close(inner, Exit.void));
    },
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  };
};

export const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/**
 * Fair scheduling, for any backend: one owner's 20 waiting runs do not hold back another owner's
 * run, which is served second; the busy owner's runs keep their order. `open` builds the queue
 * layer with the given polling interval (ms).
 */
export const expectOwnersServedInTurn = async (open: (processEveryMs: number) => Promise<Built>): Promise<void> => {
  const producer = await open(30_000);
  const owned = (owner: string): RunJob => ({
    runId: globalThis.crypto.randomUUID() as RunId,
    datasetId: globalThis.crypto.randomUUID() as DatasetId,
    ownerId: owner as OwnerId,
  });
  const burst = Array.from({ length: 20 }, () => owned("11111111-1111-4111-8111-111111111111"));
  const other = owned("22222222-2222-4222-8222-222222222222");
  for (const job of [...burst, other]) await Effect.runPromise(producer.queue.enqueue(job));
  // One job locked per scan (lockLimit = concurrency): scan often so the burst drains quickly.
  const worker = await open(100);
  const order: string[] = [];
  const stop = await worker.scoped(worker.queue.consume(1, (job) => Effect.sync(() => void order.push(job.runId))));
  await until("every job to be handled", () => order.length === 21, 30_000);
  await stop();
  expect(order.indexOf(other.runId), "the other owner's run is served second").to.equal(1);
  expect(order.filter((id) => id !== other.runId)).to.deep.equal(burst.map((j) => j.runId));
};
