import createClient, { type Client } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };
export type GleanerClient = Client<paths>;
export type Run = components["schemas"]["Run"];
export type RunTrace = components["schemas"]["RunTrace"];
export type RunDiagnostics = components["schemas"]["RunDiagnostics"];
export type Preview = components["schemas"]["Preview"];
export type Suggestion = components["schemas"]["Suggestion"];

export interface ClientOptions {
  /** The server's base address, e.g. http://localhost:8080 (no /v1). */
  readonly baseUrl: string;
  /** An API key: gl_… */
  readonly apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  readonly fetch?: typeof fetch;
}

/**
 * A typed client for every operation of the API, generated from its OpenAPI document
 * (openapi-typescript types, openapi-fetch calls): paths, parameters, bodies and answers are checked
 * by the compiler, so a client cannot drift from the server it was generated from.
 *
 *   const gleaner = createGleanerClient({ baseUrl, apiKey });
 *   const { data, error } = await gleaner.GET("/v1/datasets/{datasetId}", { params: { path: { datasetId } } });
 */
export const createGleanerClient = ({ baseUrl, apiKey, fetch: fetchImpl }: ClientOptions): GleanerClient =>
  createClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${apiKey}` },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });

const terminal = new Set(["succeeded", "failed", "blocked", "held"]);

export interface WaitOptions {
  /** Called with the run and its trace after every poll (progress displays). */
  readonly onProgress?: (run: Run, trace: RunTrace | null) => void;
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
}

/** Polls a run until it is finished (succeeded, failed, blocked or held) and returns it. */
export const waitForRun = async (client: GleanerClient, runId: string, options: WaitOptions = {}): Promise<Run> => {
  const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
  for (;;) {
    const { data, error } = await client.GET("/v1/runs/{runId}", { params: { path: { runId } } });
    if (error) throw new Error(`Reading run ${runId} failed: ${error.error.code}: ${error.error.message}`);
    let trace: RunTrace | null = null;
    if (options.onProgress) {
      const answer = await client.GET("/v1/runs/{runId}/trace", { params: { path: { runId } } });
      trace = answer.data?.trace ?? null;
      options.onProgress(data.run, trace);
    }
    if (terminal.has(data.run.status)) return data.run;
    if (Date.now() > deadline) throw new Error(`Run ${runId} did not finish in time (status ${data.run.status}).`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
  }
};

/** An error naming what failed, the status and the server's error code and message. */
const failure = (what: string, response: Response, error: unknown): Error => {
  const problem = error as { error?: { code?: string; message?: string } } | undefined;
  return new Error(
    `${what} failed (${response.status}): ${problem?.error?.code ?? "error"}: ${problem?.error?.message ?? ""}`,
  );
};

export type ExportFormat = "csv" | "jsonl" | "parquet";

export interface ExportOptions {
  readonly format: ExportFormat;
  /** A change-feed sequence: the rows exactly as a feed consumer had them after it. */
  readonly asOf?: number;
  readonly status?: ReadonlyArray<"new" | "changed" | "unchanged" | "gone">;
}

/**
 * A dataset's rows as a CSV, JSONL or Parquet byte stream (the server streams it; nothing is held
 * whole here either). Pipe it to a file: `Readable.fromWeb(await exportRows(…)).pipe(createWriteStream(…))`.
 */
export const exportRows = async (
  client: GleanerClient,
  datasetId: string,
  { format, asOf, status }: ExportOptions,
): Promise<ReadableStream<Uint8Array>> => {
  const { data, error, response } = await client.GET("/v1/datasets/{datasetId}/export", {
    params: {
      path: { datasetId },
      query: { format, ...(asOf !== undefined ? { asOf } : {}), ...(status ? { status: [...status] } : {}) },
    },
    parseAs: "stream",
  });
  if (error || !data) throw failure(`Exporting dataset ${datasetId}`, response, error);
  return data as ReadableStream<Uint8Array>;
};

export type Webhook = components["schemas"]["Webhook"];
export type WebhookDelivery = components["schemas"]["WebhookDelivery"];
export type WebhookRegistration = operations["createWebhook"]["requestBody"]["content"]["application/json"];

/**
 * Registers a webhook and returns it with its signing secret, which the server shows only this
 * once: keep it to verify deliveries (`new Webhook(secret).verify(body, headers)` from the
 * `standardwebhooks` package).
 */
export const registerWebhook = async (
  client: GleanerClient,
  registration: WebhookRegistration,
): Promise<{ readonly webhook: Webhook; readonly secret: string }> => {
  const { data, error, response } = await client.POST("/v1/webhooks", { body: registration });
  if (error || !data) throw failure("Registering the webhook", response, error);
  return data;
};
