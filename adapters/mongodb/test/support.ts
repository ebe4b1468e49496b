import { MongoClient } from "mongodb";
import { describeTarget } from "../src/errors.js";

/**
 * The MongoDB sets run only against a server named by GLEANER_MONGODB_URL: none can be installed
 * on the project's machines or in its CI (no Debian package; npm wrappers download the server at
 * run time, which fails there), so there is no local default to probe. Without the variable this
 * prints one line saying what was not run and why, and registers nothing. With it, a server that
 * does not answer fails the set: whoever set the variable expects it to run.
 */
export const whenMongoConfigured = (setName: string, register: (url: string) => void): void => {
  const url = process.env.GLEANER_MONGODB_URL;
  if (url) {
    register(url);
    return;
  }
  console.log(
    `[mongodb] NOT RUN: ${setName} — GLEANER_MONGODB_URL is not set, and no MongoDB server can be installed ` +
      "on this machine or in CI. Set it to a replica set (e.g. mongodb://localhost:27017/?replicaSet=rs0) to run it.",
  );
};

/** A database of its own per test run: the server is shared, the database is not. */
export const freshDatabase = (prefix = "gleaner_test_"): string =>
  `${prefix}${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

export const dropDatabase = async (url: string, database: string): Promise<void> => {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.db(database).dropDatabase();
  } catch (error) {
    console.log(`[mongodb] could not drop ${database} on ${describeTarget(url)}: ${String(error)}`);
  } finally {
    await client.close();
  }
};

/** A collection in the URL's own database (the driver's default, as Agenda's backend uses it). */
export const dropCollection = async (url: string, collection: string): Promise<void> => {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  try {
    await client.db().collection(collection).drop();
  } catch (error) {
    console.log(`[mongodb] could not drop ${collection} on ${describeTarget(url)}: ${String(error)}`);
  } finally {
    await client.close();
  }
};
