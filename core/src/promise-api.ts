import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import type * as Schema from "effect/Schema";
import { type DecodedQuery, decodeRequest } from "./decode-request.js";
import { DiagnosticsQuery, getDiagnostics } from "./diagnostics/get-diagnostics.js";
import { RoutinesLive } from "./engine/routines-live.js";
import { RunWorkerLive } from "./engine/worker.js";
import type { Credits } from "./ports/credits.js";
import type { DocumentParser } from "./ports/document-parser.js";
import type { Fetcher } from "./ports/fetcher.js";
import type { RunQueue } from "./ports/run-queue.js";
import type { Storage } from "./ports/storage.js";
import { AllowedTargets, parseAllowList } from "./reading/index.js";
import { isApiError } from "./rules/http-status.js";
import { RunWaitTimeoutError, toGleanerError } from "./promise-errors.js";
import { terminalRunStatuses } from "./schema/run.js";
import { CreateDatasetRequest, DatasetListQuery, UpdateDatasetRequest } from "./schema/dataset.js";
import { ChangeQuery, EditRowRequest, RowListQuery } from "./schema/requests-rows.js";
import { CreateRunBody, type CreateRunRequest } from "./schema/requests-runs.js";
import { listChanges } from "./usecases/changes.js";
import { createDataset, deleteDataset, getDataset, listDatasets, updateDataset } from "./usecases/datasets.js";
import { acceptHeldRun } from "./usecases/held-runs.js";
import { ensureOwner, grantCredits } from "./usecases/owners.js";
import { editRow } from "./usecases/row-edit.js";
import { getRow, listRows } from "./usecases/rows.js";
import { getTrace } from "./usecases/run-insights.js";
import { createRun, getRun, listRuns, RunListQuery } from "./usecases/runs.js";
import { getUsage } from "./usecases/usage.js";

/**
 * Gleaner for code that does not use Effect: `createGleaner` builds the services from the adapters
 * given, runs the worker in this process, and answers Promises. Inputs and outputs are the core
 * schemas' types; a failure is a GleanerError subclass (promise-errors.ts) with the code and status
 * the HTTP API would answer.
 * An Effect user keeps the use cases themselves (`@gleaner/core`'s Effect API).
 */

export interface GleanerOptions {
  /** Storage and Credits, e.g. `MemoryStoreLive` (@gleaner/memory) or `PostgresStoreLive({ url })`. */
  readonly storage: Layer.Layer<Storage | Credits, unknown>;
  /** The run queue, e.g. `MemoryRunQueueLive()` or `AgendaQueueLive(…)`. */
  readonly queue: Layer.Layer<RunQueue, unknown>;
  /** Reads pages, e.g. `HttpFetcherLive({})` (@gleaner/http). */
  readonly fetcher: Layer.Layer<Fetcher, unknown>;
  /** Parses pages, e.g. `Htmlparser2ParserLive` (@gleaner/htmlparser2). */
  readonly parser: Layer.Layer<DocumentParser, unknown>;
  /** The owner the datasets belong to, created on first use (default "default"). */
  readonly owner?: string;
  /** Private address ranges sources may read (e.g. 127.0.0.1/32 for a site on loopback); none by default. */
  readonly allowPrivateTargets?: ReadonlyArray<string>;
  /** Runs this process executes at once (default 2). */
  readonly workers?: number;
}

/** A query's options as a caller writes them: the schema's decoded fields, each optional. */
export type QueryOptions<S extends Schema.Schema.AnyNoContext> = {
  readonly [K in keyof Schema.Schema.Type<S>]?: Schema.Schema.Type<S>[K];
};
export type RowListOptions = QueryOptions<typeof RowListQuery>;
export type ChangeListOptions = QueryOptions<typeof ChangeQuery>;
export type DiagnosticsOptions = QueryOptions<typeof DiagnosticsQuery>;

/** Options sent on as the API's query strings, so they are decoded exactly as the HTTP API decodes them. */
const asQuery = (query: object = {}): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, typeof v === "number" ? String(v) : v]),
  );

/** The use cases take decoded inputs: these decode a caller's query or body exactly as the HTTP API does. */
const withQuery = <S extends Schema.Schema.AnyNoContext, A, E, R>(
  schema: S,
  query: QueryOptions<S> | undefined,
  use: (decoded: DecodedQuery<S>) => Effect.Effect<A, E, R>,
) =>
  Effect.flatMap(decodeRequest({ query: schema }, { query: asQuery(query), body: undefined }), ({ query }) =>
    use(query),
  );
const withBody = <S extends Schema.Schema.AnyNoContext, A, E, R>(
  schema: S,
  body: Schema.Schema.Encoded<S>,
  use: (decoded: Schema.Schema.Type<S>) => Effect.Effect<A, E, R>,
) => Effect.flatMap(decodeRequest({ body: { schema, required: true } }, { query: {}, body }), ({ body }) => use(body));

export type Gleaner = Awaited<ReturnType<typeof createGleaner>>;

export const createGleaner = async (options: GleanerOptions) => {
  const adapters = Layer.mergeAll(
    options.storage,
    options.queue,
    options.fetcher,
    options.parser,
    Layer.succeed(AllowedTargets, parseAllowList(options.allowPrivateTargets ?? [])),
  );
  const runtime = ManagedRuntime.make(
    Layer.provideMerge(Layer.mergeAll(RunWorkerLive(options.workers ?? 2), RoutinesLive), adapters),
  );
  const call = async <A>(
    effect: Effect.Effect<A, unknown, Storage | Credits | RunQueue | Fetcher | DocumentParser>,
  ) => {
    const result = await runtime.runPromise(Effect.either(effect));
    if (Either.isRight(result)) return result.right;
    throw isApiError(result.left) ? toGleanerError(result.left) : result.left;
  };
  const ownerId = (await call(ensureOwner(options.owner ?? "default"))).id;

  return {
    /** The owner every call acts as. */
    ownerId,
    datasets: {
      create: (body: typeof CreateDatasetRequest.Encoded) =>
        call(withBody(CreateDatasetRequest, body, (request) => createDataset(ownerId, request))),
      get: (datasetId: string) => call(getDataset(ownerId, datasetId)),
      list: (query?: QueryOptions<typeof DatasetListQuery>) =>
        call(withQuery(DatasetListQuery, query, (decoded) => listDatasets(ownerId, decoded))),
      update: (datasetId: string, patch: typeof UpdateDatasetRequest.Encoded) =>
        call(withBody(UpdateDatasetRequest, patch, (request) => updateDataset(ownerId, datasetId, request))),
      delete: (datasetId: string) => call(deleteDataset(ownerId, datasetId)),
    },
    runs: {
      start: (datasetId: string, request: typeof CreateRunRequest.Encoded = {}) =>
        call(
          Effect.flatMap(decodeRequest({ body: CreateRunBody }, { query: {}, body: request }), ({ body }) =>
            createRun(ownerId, datasetId, body),
          ),
        ),
      get: (runId: string) => call(getRun(ownerId, runId)),
      list: (datasetId: string, query?: QueryOptions<typeof RunListQuery>) =>
        call(withQuery(RunListQuery, query, (decoded) => listRuns(ownerId, datasetId, decoded))),
      /** Polls until the run has finished (succeeded, failed, blocked or held) and answers it; a RunWaitTimeoutError after `timeoutMs`. */
      wait: async (runId: string, { intervalMs = 50, timeoutMs = 10 * 60_000 } = {}) => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const run = await call(getRun(ownerId, runId));
          if (terminalRunStatuses.includes(run.status)) return run;
          if (Date.now() > deadline) throw new RunWaitTimeoutError(runId, run.status, timeoutMs);
          await new Promise((resolve) => setTimeout(resolve, intervalMs));
        }
      },
      accept: (runId: string) => call(acceptHeldRun(ownerId, runId)),
      trace: (runId: string) => call(getTrace(ownerId, runId)),
      diagnostics: (runId: string, query?: DiagnosticsOptions) =>
        call(withQuery(DiagnosticsQuery, query, (decoded) => getDiagnostics(ownerId, runId, decoded))),
    },
    rows: {
      list: (datasetId: string, query?: RowListOptions) =>
        call(withQuery(RowListQuery, query, (decoded) => listRows(ownerId, datasetId, decoded))),
      get: (datasetId: string, rowId: string) => call(getRow(ownerId, datasetId, rowId)),
      edit: (datasetId: string, rowId: string, body: typeof EditRowRequest.Encoded) =>
        call(withBody(EditRowRequest, body, (request) => editRow(ownerId, datasetId, rowId, request))),
    },
    changes: {
      list: (datasetId: string, query?: ChangeListOptions) =>
        call(withQuery(ChangeQuery, query, (decoded) => listChanges(ownerId, datasetId, decoded))),
    },
    usage: {
      get: () => call(getUsage(ownerId)),
      /** Adds credits to the owner's balance (an embedding host decides who pays). */
      grant: (amount: number) => call(grantCredits(options.owner ?? "default", amount)),
    },
    /** Stops the worker and releases the adapters (connections, browsers). */
    close: () => runtime.dispose(),
  };
};
