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
