import pg from "pg";

/** The server the PostgreSQL tests use, as an administrator: to create and drop databases, and to end backends. */
export const adminUrl = process.env.GLEANER_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** One statement on a connection of its own, closed after it. */
export const admin = async (text: string): Promise<pg.QueryResultRow[]> => {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
};

/**
 * Creates `database` for one describe block's PostgreSQL test and answers its URL. A server out of
 * reach leaves the block NOT RUN (skipped, said so), unless GLEANER_REQUIRE_POSTGRES=1 or CI=true
 * say it must be there: then it fails.
 */
export const ownDatabase = async (context: Mocha.Context, database: string): Promise<URL> => {
  try {
    await admin("select 1");
  } catch (error) {
    if (process.env.GLEANER_REQUIRE_POSTGRES === "1" || process.env.CI === "true") throw error;
    console.log(`      NOT RUN: PostgreSQL at ${adminUrl} is not reachable (${(error as Error).message}).`);
    context.skip();
  }
  await admin(`create database ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url;
};
