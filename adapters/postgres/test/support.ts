import { aQueuedRun } from "@gleaner/conformance";
import { type DatasetRecord, type NewRevision, type RowRecord, Storage } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import { after, before, describe, it } from "mocha";
import pg from "pg";
import { type PostgresConfig, PostgresStoreLive } from "../src/index.js";

/**
 * Where the PostgreSQL tests connect: GLEANER_POSTGRES_URL, else the local trust-auth server as
 * user postgres, then as root (whichever exists on the machine).
 */
const candidates = (): ReadonlyArray<string> => {
  const configured = process.env.GLEANER_POSTGRES_URL;
  return configured ? [configured] : ["postgres://postgres@127.0.0.1:5432/test", "postgres://root@127.0.0.1:5432/test"];
};

export type Reachability =
  | { readonly url: string; readonly reachable: true }
  | { readonly reachable: false; readonly reason: string };

const hidePassword = (url: string): string => url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");

/** Tries each candidate with a short timeout; the first that answers `select 1` wins. */
export const probePostgres = async (): Promise<Reachability> => {
  const reasons: string[] = [];
  for (const url of candidates()) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
    try {
      await client.connect();
      await client.query("select 1");
      return { url, reachable: true };
    } catch (error) {
      const code = (error as { code?: string }).code;
      reasons.push(
        `${hidePassword(url)}: ${error instanceof Error ? error.message : String(error)}${code ? ` (${code})` : ""}`,
      );
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return { reachable: false, reason: reasons.join("; ") };
};

/**
 * Registers a PostgreSQL test set only when the server answers. Otherwise it prints one line
 * saying the set was not run and why, and registers nothing (no pending placeholders). With
 * GLEANER_REQUIRE_POSTGRES=1 an unreachable server is a failing test instead, so CI cannot pass
 * by skipping (a throw here would not do: mocha reports a failed import of a .ts test file with
 * its own, unrelated require() error).
 */
export const whenPostgresReachable = async (setName: string, register: (url: string) => void): Promise<void> => {
  const probe = await probePostgres();
  if (probe.reachable) return register(probe.url);
  if (process.env.GLEANER_REQUIRE_POSTGRES === "1") {
    const message = `GLEANER_REQUIRE_POSTGRES=1 but PostgreSQL is not reachable, so "${setName}" cannot run: ${probe.reason}`;
    console.error(`[postgres] ${message}`);
    describe(setName, () => {
      it("needs a reachable PostgreSQL (GLEANER_REQUIRE_POSTGRES=1)", () => {
        throw new Error(message);
      });
    });
    return;
  }
  console.log(
    `[postgres] NOT RUN: ${setName} — PostgreSQL is not reachable (${probe.reason}). ` +
      "Set GLEANER_POSTGRES_URL to a server to run it (GLEANER_REQUIRE_POSTGRES=1 makes this a failure).",
  );
};

/** A schema name of its own per test run: the database is shared, the schema is not. */
export const freshSchema = (prefix = "gl_test_"): string =>
  `${prefix}${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;

export const dropSchema = async (url: string, schema: string): Promise<void> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
};

/** A new run of `dataset`, stored and claimed: running, ready to be accepted. */
export const aClaimedRun = (dataset: DatasetRecord) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const queued = aQueuedRun(dataset);
    yield* storage.insertRun(queued);
    return Option.getOrThrow(yield* storage.claimRun(queued.id, new Date().toISOString(), false)).run;
  });

/** A store on a schema of its own for one describe block: disposed and the schema dropped after it. */
export const aStoreOnItsOwnSchema = (url: string, config: Partial<PostgresConfig> = {}) => {
  const schema = freshSchema();
  const runtime = ManagedRuntime.make(PostgresStoreLive({ url, schema, poolSize: 4, ...config }));
  after(async () => {
    await runtime.dispose();
    await dropSchema(url, schema);
  });
  return { schema, run: <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect) };
};

/** `row` naming `revision` and holding its very state objects, as core's reconcile builds a revised row. */
export const carryingItsRevision = (row: RowRecord, revision: NewRevision): RowRecord => ({
  ...row,
  data: revision.data,
  evidence: revision.evidence,
  overrides: revision.overrides,
  missingReasons: revision.missingReasons,
  presence: revision.presence,
  revisionId: revision.id,
});

/** A store on a schema of its own and a client of its own on the same server, for one describe block. */
export const aStoreAndClientOnItsOwnSchema = (url: string, config: Partial<PostgresConfig> = {}) => {
  const store = aStoreOnItsOwnSchema(url, config);
  const client = new pg.Client({ connectionString: url });
  before(async () => {
    await store.run(Effect.void);
    await client.connect();
  });
  after(() => client.end());
  return { ...store, client };
};

/**
 * Two stores on one fresh schema, as two processes on one database (`secondConfig` for the second),
 * and a client of its own, for one describe block: disposed and the schema dropped after it.
 */
export const twoStoresOnOneSchema = (url: string, secondConfig: Partial<PostgresConfig> = {}) => {
  const schema = freshSchema();
  const first = ManagedRuntime.make(PostgresStoreLive({ url, schema, poolSize: 3 }));
  const second = ManagedRuntime.make(PostgresStoreLive({ url, schema, poolSize: 3, ...secondConfig }));
  const client = new pg.Client({ connectionString: url });
  before(async () => {
    await first.runPromise(Effect.void);
    await second.runPromise(Effect.void);
    await client.connect();
  });
  after(async () => {
    await client.end();
    await first.dispose();
    await second.dispose();
    await dropSchema(url, schema);
  });
  return { schema, first, second, client };
};
