import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type ExportFormat, exportRows } from "@gleaner/client";
import { apiClient } from "./watch.js";

const formats: ReadonlyArray<ExportFormat> = ["csv", "jsonl", "parquet"];

export interface ExportCommand {
  readonly datasetId: string;
  readonly format: string | undefined;
  readonly asOf: string | undefined;
}

/**
 * `gleaner export <datasetId> [--format csv|jsonl|parquet] [--as-of N]`: streams the export from a
 * running server (GLEANER_URL, GLEANER_API_KEY) to standard output, through the typed client, so
 * the command sees exactly what an API user sees, owner scoping included.
 */
export const runExport = async (
  { datasetId, format = "csv", asOf }: ExportCommand,
  env: Record<string, string | undefined> = process.env,
): Promise<void> => {
  if (!formats.includes(format as ExportFormat)) throw new Error(`--format must be one of ${formats.join(", ")}.`);
  if (asOf !== undefined && !/^[0-9]{1,16}$/.test(asOf)) throw new Error("--as-of must be a sequence (digits only).");
  const client = apiClient(env as NodeJS.ProcessEnv);
  const body = await exportRows(client, datasetId, {
    format: format as ExportFormat,
    ...(asOf !== undefined ? { asOf: Number(asOf) } : {}),
  });
  await pipeline(Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>), process.stdout);
};
