/**
 * One server process for the rows API benchmark (run.ts starts two of these, one after the other,
 * so both contenders get the same process setup: one Node process, nothing else on its event loop).
 *
 *   gleaner: the Koa host on the memory store, seeded with ROWS rows through the Storage port;
 *            prints one JSON line { url, key, datasetId } when ready.
 *   bare:    a bare Koa app answering GET /<name> with the bytes of <dir>/<name>.json, the same
 *            content type and X-Credits-Remaining header; prints { url } when ready.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type DatasetId,
  type NewRevision,
  type ObservationId,
  type RevisionId,
  type RowId,
  type RowRecord,
  type RunId,
  Storage,
} from "@gleaner/core";
import { startHost } from "@gleaner/koa";
import { MemoryStoreLive } from "@gleaner/memory";
import * as Effect from "effect/Effect";
import Koa from "koa";
import { pino } from "pino";

export const ROWS = 100_000;
/** Rows written per simulated run: rows of one run share updatedAt, so ties are broken by id. */
const ROWS_PER_RUN = 1_000;

const datasetBody = {
  name: "Rows bench",
  columns: [
    { name: "link", type: "string", key: true },
    { name: "title", type: "string" },
    { name: "price", type: "number" },
    { name: "rating", type: "string" },
    { name: "availability", type: "string" },
    { name: "notes", type: "string", ownership: "user" },
  ],
  source: {
    version: 1,
    url: "https://books.example/index.html",
    itemSelector: "article.product_pod",
    fields: [
      { name: "link", read: { selector: "h3 > a", kind: "attribute", attribute: "href" } },
      { name: "title", read: { selector: "h3 > a", kind: "attribute", attribute: "title" } },
      { name: "price", read: { selector: "p.price_color" } },
      { name: "rating", read: { selector: "p.star-rating", kind: "attribute", attribute: "class" } },
      { name: "availability", read: { selector: "p.availability" } },
    ],
    identity: { kind: "source-key", field: "link" },
    pagination: { kind: "none" },
  },
};

const gleaner = async () => {
  const host = await startHost({
    overrides: { store: MemoryStoreLive },
    worker: false,
    config: { port: 0, host: "127.0.0.1", logLevel: "silent" },
    logger: pino({ level: "silent" }),
  });
  const key = await host.createKey("bench", 10);
  const created = await fetch(`${host.url}/v1/datasets`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(datasetBody),
  });
  const { dataset } = (await created.json()) as {
    dataset: { id: DatasetId; columns: Array<{ id: string; name: string }> };
  };
  const column = (name: string) => dataset.columns.find((c) => c.name === name)!.id;
  const [link, title, price, rating, availability, notes] = [
    "link",
    "title",
    "price",
    "rating",
    "availability",
    "notes",
  ].map(column) as [string, string, string, string, string, string];

  // Seed through the port, as accepted runs would: rows, their created revisions, one observation per run.
  await host.runtime.runPromise(
    Effect.gen(function* () {
      const storage = yield* Storage;
      for (let run = 0; run < ROWS / ROWS_PER_RUN; run++) {
        const runId = globalThis.crypto.randomUUID() as RunId;
        const at = new Date(Date.UTC(2026, 0, 1) + run * 60_000).toISOString();
        const observationId = globalThis.crypto.randomUUID() as ObservationId;
        const rows: Array<{ row: RowRecord; expectedRevisionId: "absent" }> = [];
        const revisions: NewRevision[] = [];
        for (let i = 0; i < ROWS_PER_RUN; i++) {
          const n = run * ROWS_PER_RUN + i;
          const rowId = globalThis.crypto.randomUUID() as RowId;
          const revisionId = globalThis.crypto.randomUUID() as RevisionId;
          const evidence = { observationId, entryId: `e${i}` };
          const data = {
            [link]: `https://books.example/catalogue/book_${n}/index.html`,
            [title]: `Book number ${n}: a title of ordinary length`,
            [price]: Math.round((10 + (n % 5000) / 100) * 100) / 100,
            [rating]: "star-rating Three",
            [availability]: "In stock",
            [notes]: null,
          };
          const fieldEvidence = Object.fromEntries(
            [link, title, price, rating, availability].map((f) => [f, [evidence]]),
          );
          const row: RowRecord = {
            id: rowId,
            datasetId: dataset.id,
            rowKey: data[link] as string,
            data,
            evidence: fieldEvidence,
            overrides: {},
            missingReasons: {},
            presence: "present",
            status: "new",
            firstSeenRunId: runId,
            lastSeenRunId: runId,
            sourceUrl: "https://books.example/index.html",
            observedAt: at,
            updatedAt: at,
            revisionId,
          };
          rows.push({ row, expectedRevisionId: "absent" });
          revisions.push({
            id: revisionId,
            datasetId: dataset.id,
            rowId,
            schemaVersion: 1,
            previousRevisionId: null,
            runId,
            actorId: null,
            requestId: null,
            requestHash: null,
            origin: "collection",
            kind: "created",
            changedFieldIds: Object.keys(fieldEvidence) as never,
            data,
            evidence: fieldEvidence,
            overrides: {},
            missingReasons: {},
            presence: "present",
            createdAt: at,
            before: null,
            beforeOverrides: null,
          });
        }
        yield* seedRun(storage, dataset.id, runId, at, rows, revisions, observationId);
      }
    }),
  );
  console.log(JSON.stringify({ url: host.url, key, datasetId: dataset.id }));
};

const seedRun = (
  storage: typeof Storage.Service,
  datasetId: DatasetId,
  runId: RunId,
  at: string,
  rows: Array<{ row: RowRecord; expectedRevisionId: "absent" }>,
  revisions: NewRevision[],
  observationId: ObservationId,
) =>
  Effect.gen(function* () {
    const owner = yield* storage.findOwnerByName("bench");
    if (owner._tag === "None") throw new Error("The bench owner is missing.");
    const ownerId = owner.value.id;
    const queued = {
      id: runId,
      datasetId,
      ownerId,
      status: "queued" as const,
      trigger: "manual" as const,
      checks: [],
      rowDeltas: { new: 0, changed: 0, gone: 0 },
      error: null,
      queuedAt: at,
      startedAt: null,
      completedAt: null,
      attempts: 0,
      chargedPages: null,
    };
    yield* storage.insertRun(queued);
    yield* storage.claimRun(runId, at, false);
    const done = {
      ...queued,
      status: "succeeded" as const,
      startedAt: at,
      completedAt: at,
      attempts: 1,
      chargedPages: 0,
      rowDeltas: { new: rows.length, changed: 0, gone: 0 },
    };
    const trace = {
      runId,
      datasetId,
      queueMs: 0,
      wallMs: 0,
      truncated: false,
      phases: [],
      steps: [],
      discovery: null,
      harnessVersion: null,
    };
    const outcome = yield* storage.acceptRun({
      run: done,
      rows,
      revisions,
      observations: [
        {
          id: observationId,
          sourceUrl: "https://books.example/index.html",
          observedAt: at,
          contentDigest: "sha256:bench",
          entries: rows.map((_, i) => ({ id: `e${i}`, excerpt: "…", truncated: false })),
        },
      ],
      charge: { ownerId, pages: 0, entryId: globalThis.crypto.randomUUID() },
      evidence: { trace, artifacts: [], facts: [], failures: [] },
      heldRun: { ...done, status: "held" },
      heldEvidence: { trace, artifacts: [], facts: [], failures: [] },
      // Seeding is paid for (0 pages): never held, so no outcome is ever asked for.
      heldOutcome: () => {
        throw new Error("a seeding run is never held");
      },
    });
    if (outcome._tag !== "Accepted") throw new Error(`Seeding run ${runId}: ${outcome._tag}`);
  });

const bare = async (dir: string) => {
  const bodies = new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => [`/${f.slice(0, -".json".length)}`, readFileSync(join(dir, f))]),
  );
  const app = new Koa();
  app.use((ctx) => {
    const body = bodies.get(ctx.path);
    if (!body) return;
    ctx.set("X-Credits-Remaining", "10");
    ctx.type = "application/json; charset=utf-8";
    ctx.body = body;
  });
  const server = app.listen(0, "127.0.0.1", () => {
    const address = server.address() as { port: number };
    console.log(JSON.stringify({ url: `http://127.0.0.1:${address.port}` }));
  });
};

// Exit cleanly on SIGTERM so that `node --cpu-prof` can write its profile.
process.on("SIGTERM", () => process.exit(0));
const [mode, dir] = process.argv.slice(2);
if (mode === "gleaner") await gleaner();
else if (mode === "bare" && dir) await bare(dir);
else throw new Error("usage: server.ts gleaner | bare <dir>");
