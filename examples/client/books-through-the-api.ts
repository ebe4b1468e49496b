/**
 * Using Gleaner over HTTP with the typed client: create the books dataset, start a run, wait for
 * it, read rows. Paths, parameters, bodies and answers are checked by the compiler against the
 * OpenAPI document the client was generated from.
 *
 *   GLEANER_URL=http://localhost:8080 GLEANER_API_KEY=gl_… SITE=http://127.0.0.1:8081 npx tsx examples/client/books-through-the-api.ts
 */
import { createGleanerClient, type Run, waitForRun } from "@gleaner/client";
import { booksDataset } from "../books-dataset.js";

export interface BooksThroughTheApi {
  readonly run: Run;
  readonly rows: ReadonlyArray<{ readonly title: unknown; readonly price: unknown }>;
}

export const booksThroughTheApi = async (
  baseUrl: string,
  apiKey: string,
  site: string,
): Promise<BooksThroughTheApi> => {
  const gleaner = createGleanerClient({ baseUrl, apiKey });
  const created = await gleaner.POST("/v1/datasets", {
    body: booksDataset(site, `Books ${Date.now()}`),
  });
  if (created.error) throw new Error(`${created.error.error.code}: ${created.error.error.message}`);
  const dataset = created.data.dataset;
  const started = await gleaner.POST("/v1/datasets/{datasetId}/runs", { params: { path: { datasetId: dataset.id } } });
  if (started.error) throw new Error(`${started.error.error.code}: ${started.error.error.message}`);
  const run = await waitForRun(gleaner, started.data.runId);
  const page = await gleaner.GET("/v1/datasets/{datasetId}/rows", {
    params: { path: { datasetId: dataset.id }, query: { limit: 5 } },
  });
  if (page.error) throw new Error(`${page.error.error.code}: ${page.error.error.message}`);
  // Rows are keyed by Field id; the dataset's columns map names to ids.
  const id = (name: string) => dataset.columns.find((c) => c.name === name)?.id ?? "";
  return { run, rows: page.data.data.map((row) => ({ title: row.data[id("title")], price: row.data[id("price")] })) };
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const { GLEANER_URL = "http://localhost:8080", GLEANER_API_KEY = "", SITE = "http://127.0.0.1:8081" } = process.env;
  const { run, rows } = await booksThroughTheApi(GLEANER_URL, GLEANER_API_KEY, SITE);
  console.log(run.status, run.rowDeltas, rows);
}
