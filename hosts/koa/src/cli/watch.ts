import {
  createGleanerClient,
  type GleanerClient,
  type Run,
  type RunDiagnostics,
  type RunTrace,
  waitForRun,
} from "@gleaner/client";
import { checkLine } from "@gleaner/core";
import cliProgress from "cli-progress";

/** Where the API is and which key to use, for the commands that talk to a running server. */
export const apiClient = (env: NodeJS.ProcessEnv = process.env): GleanerClient => {
  const apiKey = env.GLEANER_API_KEY;
  if (!apiKey) {
    throw new Error("GLEANER_API_KEY is not set: export the key `npm start` (or `gleaner keys create`) printed.");
  }
  return createGleanerClient({ baseUrl: env.GLEANER_URL ?? "http://localhost:8080", apiKey });
};

interface Progress {
  readonly pages: number;
  readonly records: number;
  readonly currentUrl: string | null;
  readonly phase: string | null;
}

/** What a trace says so far: pages read, records found on them, the page being read now. */
export const progressOf = (trace: RunTrace | null): Progress => {
  const steps = trace?.steps ?? [];
  const reads = steps.filter((s) => s.phase === "read" && s.status === "succeeded");
  const current = [...steps].reverse().find((s) => s.status === "running");
  return {
    pages: reads.length,
    records: reads.reduce((sum, s) => sum + (s.candidateRows ?? 0), 0),
    currentUrl: current?.sourceUrl ?? null,
    phase: current?.phase ?? steps.at(-1)?.phase ?? null,
  };
};

type Columns = ReadonlyArray<{ readonly id: string; readonly label: string }>;

/** The run's dataset's columns, to name its `present:` checks; none when they cannot be read. */
const columnsOf = async (client: GleanerClient, run: Run): Promise<Columns> => {
  const { data } = await client.GET("/v1/datasets/{datasetId}", { params: { path: { datasetId: run.datasetId } } });
  return data?.dataset.columns ?? [];
};

/** The outcome in words: status, row deltas, then each check (failed ones first, columns by label) with its message. */
export const outcomeLines = (run: Run, columns: Columns = []): string[] => {
  const lines = [
    `Run ${run.id} ${run.status}: ${run.rowDeltas.new} new, ${run.rowDeltas.changed} changed, ${run.rowDeltas.gone} gone.`,
  ];
  if (run.error) lines.push(`  ${run.error}`);
  const checks = [...run.checks].sort((a, b) => Number(a.passed) - Number(b.passed));
  for (const check of checks) {
    lines.push(`  ${check.passed ? "✓" : "✗"} ${checkLine(check, columns)}`);
  }
  return lines;
};

const shown = (value: unknown): string => (value === null ? "nothing" : JSON.stringify(value));

/**
 * Why a run was held, from its diagnostics: each tripped drift rule with its figures and up to three
 * example rows (what the dataset had, what the run read instead), then how to accept it.
 */
export const heldLines = (run: Run, diagnostics: RunDiagnostics | null): string[] => {
  const drift = diagnostics?.drift;
  const lines: string[] = [];
  for (const rule of drift?.rules ?? []) {
    lines.push(`  ${rule.code}: ${rule.message}`);
    for (const example of rule.examples.slice(0, 3)) {
      lines.push(
        `    ${example.entity}: was ${shown(example.previous)}, read ${shown(example.read)}${example.url ? ` (${example.url})` : ""}`,
      );
    }
  }
  lines.push(`  Accept it if the site really changed: gleaner runs accept ${run.id}`);
  return lines;
};

/** Prints a held run's reasons (its diagnostics are read once it finished held). */
const printHeld = async (client: GleanerClient, run: Run, out: NodeJS.WriteStream) => {
  const { data } = await client.GET("/v1/runs/{runId}/diagnostics", { params: { path: { runId: run.id } } });
  for (const line of heldLines(run, data?.diagnostics ?? null)) out.write(`${line}\n`);
};

/**
 * Follows a run until it finishes: a progress bar when stdout is a terminal, one plain line per
 * change otherwise (logs, CI). Resolves with the finished run.
 */
export const watchRun = async (
  client: GleanerClient,
  runId: string,
  out: NodeJS.WriteStream = process.stdout,
): Promise<Run> => {
  const tty = out.isTTY === true;
  const bar = tty
    ? new cliProgress.SingleBar(
        { format: "{status} |{bar}| {value} pages, {records} records  {url}", hideCursor: true, stream: out },
        cliProgress.Presets.shades_classic,
      )
    : null;
  let last = "";
  bar?.start(1, 0, { status: "queued", records: 0, url: "" });
  const run = await waitForRun(client, runId, {
    intervalMs: 300,
    onProgress: (current, trace) => {
      const progress = progressOf(trace);
      if (bar) {
        bar.setTotal(Math.max(progress.pages + (current.status === "running" ? 1 : 0), 1));
        bar.update(progress.pages, {
          status: current.status,
          records: progress.records,
          url: progress.currentUrl ?? "",
        });
        return;
      }
      const line = `${current.status} pages=${progress.pages} records=${progress.records}${
        progress.currentUrl ? ` reading ${progress.currentUrl}` : ""
      }`;
      if (line !== last) out.write(`${line}\n`);
      last = line;
    },
  });
  bar?.stop();
  for (const line of outcomeLines(run, await columnsOf(client, run))) out.write(`${line}\n`);
  if (run.status === "held") await printHeld(client, run, out);
  return run;
};

/** `gleaner runs accept RUN_ID`: accepts a held run and prints its outcome; an answer other than 200 fails. */
export const acceptRun = async (client: GleanerClient, runId: string, out: NodeJS.WriteStream = process.stdout) => {
  const { data, error } = await client.POST("/v1/runs/{runId}/accept", { params: { path: { runId } } });
  if (error) throw new Error(`The run was not accepted: ${error.error.code}: ${error.error.message}`);
  for (const line of outcomeLines(data.run, await columnsOf(client, data.run))) out.write(`${line}\n`);
  return data.run;
};
