import { readFileSync } from "node:fs";
import type { GleanerClient, Preview, Suggestion } from "@gleaner/client";
import Table from "cli-table3";
import { fail } from "./args.js";

/** A cell as a terminal shows it: one line, at most `width` characters. */
const cell = (value: unknown, width = 32): string => {
  const text = value === null || value === undefined ? "" : String(value).replace(/\s+/g, " ");
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
};

/** The first records of a preview as a table, one column per field. */
export const recordsTable = (preview: Preview, rows = 5): string => {
  const names = preview.fields.map((f) => f.name);
  const table = new Table({ head: names, style: { head: [], border: [] }, wordWrap: false });
  for (const record of preview.records.slice(0, rows)) {
    table.push(
      names.map((name) =>
        cell(record.values[name] ?? (record.missingReasons[name] ? `(${record.missingReasons[name]})` : "")),
      ),
    );
  }
  return table.toString();
};

/** What a preview says beyond its records: fill per field, the checks, the estimate, the warnings. */
export const previewSummary = (preview: Preview): string => {
  const records = preview.pages.reduce((sum, p) => sum + p.records, 0);
  const lines = [
    `${preview.pages.filter((p) => p.status === "read").length} page(s) read, ${records} records.`,
    `Fields: ${preview.fields.map((f) => `${f.name} ${f.filled}/${f.filled + f.missing}`).join(", ")}`,
    `Checks: ${preview.checks.map((c) => `${c.passed ? "✓" : "✗"} ${c.checkId}`).join("  ")}`,
    preview.estimate.complete
      ? `A run reads ${preview.estimate.pages} page(s) and costs ${preview.estimate.credits} credit(s).`
      : "The cost of a run is known once pagination ends within a preview.",
    ...preview.pages.filter((p) => p.status === "failed").map((p) => `Failed: ${p.url} (${p.readFailure?.reason})`),
    ...preview.warnings.map((w) => `Warning: ${w.message}${w.path ? ` [${w.path}]` : ""}`),
  ];
  return lines.join("\n");
};

/** The body POST /v1/datasets takes, from a suggestion. */
const createBody = (s: Suggestion) => ({
  name: s.name,
  ...(s.question !== undefined ? { question: s.question } : {}),
  columns: s.columns,
  source: s.source,
});

/** `gleaner suggest URL`: the suggestions as tables of their preview rows, or (`--json`) their create bodies. */
export const suggestCommand = async (
  client: GleanerClient,
  url: string,
  options: { question?: string | undefined; render?: string | undefined; json: boolean },
): Promise<void> => {
  if (options.render !== undefined && options.render !== "static" && options.render !== "browser") {
    fail(`--render must be static or browser (got ${options.render}).`);
  }
  const { data, error } = await client.POST("/v1/sources/suggest", {
    body: {
      url,
      ...(options.question ? { question: options.question } : {}),
      ...(options.render ? { render: options.render as "static" | "browser" } : {}),
    },
  });
  if (error) return fail(`No suggestions: ${error.error.code}: ${error.error.message}`);
  if (options.json) return void console.log(JSON.stringify(data.suggestions.map(createBody), null, 2));
  if (data.page.status === "failed") {
    process.exitCode = 2;
    return void console.log(`${data.page.url} could not be read (${data.page.readFailure?.reason}).`);
  }
  if (data.suggestions.length === 0) {
    process.exitCode = 2;
    return void console.log(`${data.page.url} holds no repeated records to suggest.`);
  }
  data.suggestions.forEach((s, i) => {
    console.log(`\n${i + 1}. ${s.name}\n   ${s.why}`);
    console.log(recordsTable(s.preview));
    console.log(previewSummary(s.preview));
  });
  console.log("\nCreate one with: gleaner suggest URL --json, take its body, and POST it to /v1/datasets.");
};

/**
 * `gleaner preview FILE.json`: FILE holds a preview body ({source, columns?, pages?}) or a dataset
 * body (its name and question are left out). Exits 2 when a check fails.
 */
export const previewCommand = async (client: GleanerClient, file: string): Promise<void> => {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (e) {
    return fail(`${file} is not a readable JSON file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const { name: _name, question: _question, ...request } = body;
  const { data, error } = await client.POST("/v1/sources/preview", { body: request as never });
  if (error) {
    const details = (error.error as { details?: Array<{ path: string; message: string }> }).details ?? [];
    return fail(
      [
        `The preview was refused: ${error.error.code}: ${error.error.message}`,
        ...details.map((d) => `  ${d.path} ${d.message}`),
      ].join("\n"),
    );
  }
  console.log(recordsTable(data.preview, 10));
  console.log(previewSummary(data.preview));
  process.exitCode = data.preview.checks.every((c) => c.passed) ? 0 : 2;
};
