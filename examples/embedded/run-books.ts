/**
 * Embedding Gleaner without HTTP and without Effect: `createGleaner` takes the adapters, runs the
 * worker in this process and answers Promises. This example collects the local books fixture site.
 *
 *   npm run embedded -w @gleaner/examples
 */
import { startBooksSite } from "@gleaner/conformance";
import { createGleaner, NotFoundError } from "@gleaner/core";
import { Htmlparser2ParserLive } from "@gleaner/htmlparser2";
import { HttpFetcherLive } from "@gleaner/http";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { booksDataset } from "../books-dataset.js";

export const runBooksExample = async () => {
  const site = await startBooksSite();
  // The fixture site is on loopback: allow it, as a host's GLEANER_ALLOW_PRIVATE_TARGETS would.
  const allowPrivateTargets = ["127.0.0.1/32"];
  const gleaner = await createGleaner({
    storage: MemoryStoreLive,
    queue: MemoryRunQueueLive(),
    fetcher: HttpFetcherLive({ allowPrivateTargets }),
    parser: Htmlparser2ParserLive,
    allowPrivateTargets,
    owner: "embedded-example",
  });
  try {
    await gleaner.usage.grant(100);
    const dataset = await gleaner.datasets.create(booksDataset(site.url));
    const { runId } = await gleaner.runs.start(dataset.id);
    const run = await gleaner.runs.wait(runId);
    const { data: firstRows } = await gleaner.rows.list(dataset.id, { limit: 3 });
    // A failure is a GleanerError subclass carrying the HTTP API's code and status: here a NotFoundError.
    const missing = await gleaner.datasets.get("00000000-0000-4000-8000-000000000000").catch((e: unknown) => e);
    return { run, firstRows, missing, usage: await gleaner.usage.get() };
  } finally {
    await gleaner.close();
    await site.close();
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const { run, firstRows, missing, usage } = await runBooksExample();
  console.log(`Run ${run.id}: ${run.status}, ${run.rowDeltas.new} new rows; ${usage.balance} credits left.`);
  for (const row of firstRows) console.log(JSON.stringify(row.data));
  if (!(missing instanceof NotFoundError)) throw missing;
  console.log(`Reading a dataset that does not exist: ${missing.name}, ${missing.code} (${missing.status}).`);
}
