// A fresh PostgreSQL database per bench round, so no round reads another's rows, jobs or plans.
import pg from "pg";

/** The test server (trust auth); GLEANER_POSTGRES_URL overrides it. */
export const postgresBaseUrl = (): string =>
  process.env.GLEANER_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const statement = async (url: string, text: string): Promise<void> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
};

export interface FreshDatabase {
  readonly url: string;
  /** Its name on the server (the base URL's). */
  readonly name: string;
  readonly drop: () => Promise<void>;
}

/** Creates `gl_bench_<random>` on the base URL's server; `drop` removes it, ending its connections. */
export const freshDatabase = async (baseUrl = postgresBaseUrl()): Promise<FreshDatabase> => {
  const name = `gl_bench_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await statement(baseUrl, `create database "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => statement(baseUrl, `drop database if exists "${name}" with (force)`),
  };
};
