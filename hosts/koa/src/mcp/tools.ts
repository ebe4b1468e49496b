import { setTimeout as sleep } from "node:timers/promises";
import type { components, GleanerClient } from "@gleaner/client";
import { checkName } from "@gleaner/core";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

type Schemas = components["schemas"];
type Dataset = Schemas["Dataset"];

/**
 * Gleaner's tools for AI agents (Model Context Protocol), on the typed client: each tool is one or a
 * few API calls with the caller's key, so nothing bypasses owner scoping or credits. Values are
 * keyed by column name, never by field id; a row's evidence is its excerpts and source URLs, what an
 * agent should cite. Read-only tools say so.
 */

const text = (value: unknown) => ({ content: [{ type: "text" as const, text: JSON.stringify(value, null, 2) }] });
/** An API refusal as the API answered it: the HTTP status, the error code and its message. */
type Refusal = { readonly status?: number; readonly error?: { code?: string; message?: string } };
/** What is known of a refusal: an answer without Gleaner's error body (Node's own 431, say) has only its status. */
const failed = (what: string, refusal: Refusal | undefined) => {
  const status = refusal?.status ? `HTTP ${refusal.status}` : "";
  const error = refusal?.error?.code ? `${refusal.error.code}: ${refusal.error.message ?? ""}` : "";
  return {
    isError: true,
    content: [
      { type: "text" as const, text: `${what} failed: ${[status, error].filter(Boolean).join(" ") || "no answer"}` },
    ],
  };
};
const refusal = (answer: { error?: unknown; response: Response }): Refusal => ({
  ...(answer.error as Refusal),
  status: answer.response.status,
});
const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

const byName = (dataset: Dataset, data: Record<string, unknown>) =>
  Object.fromEntries(dataset.columns.map((c) => [c.name, data[c.id] ?? null]));
const columnOf = (dataset: Dataset, name: string) => dataset.columns.find((c) => c.name === name || c.label === name);

/** Keys that hold field ids, said as columns. */
const renamedKeys: Record<string, string> = { fieldId: "column", fieldIds: "columns", changedFieldIds: "columns" };

/**
 * A run, its checks and its diagnostics as an agent reads them: checks named by core's rule, and
 * every field id left (finding codes such as `cells_missing:<id>`, loss groups) replaced by its
 * column's name, so no field id reaches an agent.
 */
const withColumnNames = (value: unknown, columns: Dataset["columns"]): unknown => {
  const named = columns.map((c) => ({ id: c.id, label: c.name }));
  const rename = (text: string) => columns.reduce((t, c) => t.replaceAll(c.id, c.name), text);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return rename(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const record = v as Record<string, unknown>;
    if (typeof record.checkId === "string" && "passed" in record) {
      return { ...record, checkId: checkName(record.checkId, named) };
    }
    return Object.fromEntries(Object.entries(record).map(([k, x]) => [renamedKeys[k] ?? rename(k), walk(x)]));
  };
  return walk(value);
};

export const gleanerMcpServer = (client: GleanerClient, version: string): McpServer => {
  const server = new McpServer({ name: "gleaner", version });
  const dataset = async (datasetId: string) => {
    const answer = await client.GET("/v1/datasets/{datasetId}", { params: { path: { datasetId } } });
    return answer.data ? answer.data.dataset : Promise.reject(refusal(answer));
  };

  server.registerTool(
    "list_datasets",
    {
      title: "List datasets",
      description: "The datasets you own: id, name, question, row count and the last run's status.",
      inputSchema: { cursor: z.string().optional().describe("nextCursor of a previous answer") },
      annotations: readOnly,
    },
    async ({ cursor }) => {
      const answer = await client.GET("/v1/datasets", { params: { query: { limit: 100, cursor } } });
      const data = answer.data;
      if (!data) return failed("Listing datasets", refusal(answer));
      return text({
        datasets: data.data.map((d) => ({
          id: d.id,
          name: d.name,
          question: d.question,
          rowCount: d.rowCount,
          lastRun: d.lastRun,
        })),
        nextCursor: data.nextCursor,
      });
    },
  );

  server.registerTool(
    "describe_dataset",
    {
      title: "Describe a dataset",
      description:
        "A dataset's columns by name (type, label, whether it is the key, collected or user-owned), its source URL, schedule and last run.",
      inputSchema: { datasetId: z.string().describe("The dataset's id (list_datasets gives it)") },
      annotations: readOnly,
    },
    async ({ datasetId }) => {
      const found = await dataset(datasetId).catch((error) => error);
      if (!found?.columns) return failed("Reading the dataset", found);
      // A server without the source route (older than this one) answers the rest all the same.
      const source = await client.GET("/v1/datasets/{datasetId}/source", { params: { path: { datasetId } } }).then(
        (answer) => answer.data?.source ?? null,
        () => null,
      );
      return text({
        id: found.id,
        name: found.name,
        question: found.question,
        sourceUrl: source?.url ?? null,
        pagination: source?.pagination.kind ?? null,
        columns: found.columns.map((c: Dataset["columns"][number]) => ({
          name: c.name,
          label: c.label,
          type: c.type,
          key: c.key,
          ownership: c.ownership,
          description: c.description,
        })),
        status: found.status,
        schedule: found.schedule,
        rowCount: found.rowCount,
        lastRun: found.lastRun,
      });
    },
  );

  server.registerTool(
    "read_rows",
    {
      title: "Read rows",
      description:
        "Rows of a dataset with values by column name, newest first. Optional: `where` keeps rows whose column equals a value (compared as text), `status` (new, changed, unchanged, gone), `since` (updated at or after, ISO time).",
      inputSchema: {
        datasetId: z.string(),
        where: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
        status: z.array(z.enum(["new", "changed", "unchanged", "gone"])).optional(),
        since: z.string().optional(),
        limit: z.number().int().min(1).max(100).default(20),
        cursor: z.string().optional(),
      },
      annotations: readOnly,
    },
    async ({ datasetId, where, status, since, limit, cursor }) => {
      const found = await dataset(datasetId).catch((error) => error);
      if (!found?.columns) return failed("Reading the dataset", found);
      const filters = Object.entries(where ?? {}).map(
        ([name, value]) => [columnOf(found, name), String(value)] as const,
      );
      const unknown = Object.keys(where ?? {}).filter((name) => !columnOf(found, name));
      if (unknown.length > 0)
        return failed("Filtering", { error: { code: "unknown_column", message: unknown.join(", ") } });
      const rows: Array<Record<string, unknown>> = [];
      let next = cursor;
      // A filter is applied to the pages read, up to ten of them, so an answer stays bounded.
      for (let page = 0; page < 10 && rows.length < limit; page++) {
        const answer = await client.GET("/v1/datasets/{datasetId}/rows", {
          params: { path: { datasetId }, query: { limit: 100, cursor: next, since, status } },
        });
        const data = answer.data;
        if (!data) return failed("Reading rows", refusal(answer));
        for (const row of data.data) {
          if (filters.every(([column, value]) => String(row.data[column!.id] ?? "") === value)) {
            rows.push({ rowId: row.id, status: row.status, sourceUrl: row.sourceUrl, values: byName(found, row.data) });
          }
        }
        next = data.nextCursor ?? undefined;
        if (!next) break;
      }
      return text({ rows: rows.slice(0, limit), nextCursor: next ?? null });
    },
  );

  server.registerTool(
    "changes_since",
    {
      title: "Changes since a sequence",
      description:
        "The dataset's change feed after a sequence number (0 for all): each change's row, kind, the columns it changed with their values before and after, by column name.",
      inputSchema: {
        datasetId: z.string(),
        after: z.number().int().min(0).default(0),
        column: z.string().optional().describe("Only changes to this column, alone or with rowId"),
        rowId: z.string().optional().describe("Only this row's changes"),
        limit: z.number().int().min(1).max(100).default(50),
      },
      annotations: readOnly,
    },
    async ({ datasetId, after, column, rowId, limit }) => {
      const found = await dataset(datasetId).catch((error) => error);
      if (!found?.columns) return failed("Reading the dataset", found);
      const fieldId = column ? columnOf(found, column)?.id : undefined;
      if (column && !fieldId) return failed("Filtering", { error: { code: "unknown_column", message: column } });
      // With a row, the column narrows its timeline to a cell's (fieldId); across rows the feed
      // selects the revisions that changed it (changedFieldId).
      const answer = await client.GET("/v1/datasets/{datasetId}/changes", {
        params: {
          path: { datasetId },
          query: {
            after,
            limit,
            rowId,
            ...(rowId === undefined ? { changedFieldId: fieldId } : { fieldId }),
          },
        },
      });
      const data = answer.data;
      if (!data) return failed("Reading changes", refusal(answer));
      const name = (id: string) => found.columns.find((c: Dataset["columns"][number]) => c.id === id)?.name ?? id;
      const rename = (values: Record<string, unknown> | null | undefined) =>
        values ? Object.fromEntries(Object.entries(values).map(([id, v]) => [name(id), v])) : values;
      return text({
        changes: data.data.map((change) => ({
          sequence: change.sequence,
          rowId: change.rowId,
          kind: change.kind,
          origin: change.origin,
          changed: change.changedFieldIds.map(name),
          before: rename(change.before),
          after: rename(change.data),
          runId: change.runId,
          at: change.createdAt,
        })),
        through: data.through,
        nextAfter: data.nextAfter,
      });
    },
  );

  server.registerTool(
    "row_evidence",
    {
      title: "A row's evidence",
      description:
        "Where each value of a row was read: the excerpt of the page around it and the page's URL, per column. Cite these when you use a value.",
      inputSchema: { datasetId: z.string(), rowId: z.string(), column: z.string().optional() },
      annotations: readOnly,
    },
    async ({ datasetId, rowId, column }) => {
      const found = await dataset(datasetId).catch((error) => error);
      if (!found?.columns) return failed("Reading the dataset", found);
      const answer = await client.GET("/v1/datasets/{datasetId}/rows/{rowId}", {
        params: { path: { datasetId, rowId } },
      });
      const data = answer.data;
      if (!data) return failed("Reading the row", refusal(answer));
      const observations = new Map(data.observations.map((o) => [o.id, o]));
      const cells = found.columns
        .filter((c: Dataset["columns"][number]) => !column || c.name === column || c.label === column)
        .map((c: Dataset["columns"][number]) => ({
          column: c.name,
          value: data.data[c.id] ?? null,
          evidence: (data.evidence[c.id] ?? []).map((ref) => {
            const observation = observations.get(ref.observationId);
            return {
              sourceUrl: observation?.sourceUrl ?? null,
              observedAt: observation?.observedAt ?? null,
              excerpt: observation?.entries.find((e) => e.id === ref.entryId)?.excerpt ?? null,
            };
          }),
        }));
      return text({ rowId, cells });
    },
  );

  server.registerTool(
    "start_run",
    {
      title: "Start a run and wait for it",
      description:
        "Collects the dataset again (charged one credit per distinct page read, like any run; accepted whole or not at all) and waits for the outcome, reporting progress. kind research for a model-assisted run.",
      inputSchema: {
        datasetId: z.string(),
        kind: z.enum(["deterministic", "research"]).optional(),
        waitSeconds: z.number().int().min(0).max(600).default(120),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ datasetId, kind, waitSeconds }, extra) => {
      const found = await dataset(datasetId).catch((error) => error);
      if (!found?.columns) return failed("Reading the dataset", found);
      const started = await client.POST("/v1/datasets/{datasetId}/runs", {
        params: { path: { datasetId } },
        body: kind ? { kind } : {},
      });
      const data = started.data;
      if (!data) return failed("Starting the run", refusal(started));
      const progressToken = extra._meta?.progressToken;
      const deadline = Date.now() + waitSeconds * 1000;
      let polls = 0;
      // A caller that hung up stops the polling (the run goes on): no one is left to tell.
      while (!extra.signal.aborted) {
        const answer = await client.GET("/v1/runs/{runId}", { params: { path: { runId: data.runId } } });
        const run = answer.data?.run;
        if (!run) return failed("Reading the run", refusal(answer));
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress: ++polls, message: `run ${run.status}` },
          });
        }
        if (!["queued", "running"].includes(run.status) || Date.now() > deadline) {
          return text(withColumnNames({ run, creditsRemaining: data.creditsRemaining }, found.columns));
        }
        await sleep(250, undefined, { signal: extra.signal }).catch(() => undefined);
      }
      return failed("Waiting for the run", { error: { code: "cancelled", message: "the caller went away" } });
    },
  );

  server.registerTool(
    "get_run",
    {
      title: "A run's outcome and why",
      description:
        "A run's status, checks, row changes and error, with the summary of its diagnostics: what was lost at which stage and why. Columns are named, never field ids.",
      inputSchema: { runId: z.string() },
      annotations: readOnly,
    },
    async ({ runId }) => {
      const answer = await client.GET("/v1/runs/{runId}", { params: { path: { runId } } });
      const run = answer.data?.run;
      if (!run) return failed("Reading the run", refusal(answer));
      const found = await dataset(run.datasetId).catch((error) => error);
      if (!found?.columns) return failed("Reading the dataset", found);
      const diagnostics = await client.GET("/v1/runs/{runId}/diagnostics", {
        params: { path: { runId }, query: { summary: "true" } },
      });
      const summary = diagnostics.data?.diagnostics;
      return text(
        withColumnNames(
          {
            run,
            findings: summary?.findings ?? [],
            unknowns: summary?.unknowns ?? [],
            losses: summary?.summary ?? null,
          },
          found.columns,
        ),
      );
    },
  );

  server.registerTool(
    "suggest_sources",
    {
      title: "Suggest sources for a page",
      description:
        "Reads a page once and suggests up to five sources for its repeated records (item selector, columns, pagination), each with its first rows and why it was chosen. Free; writes nothing.",
      inputSchema: { url: z.string().url(), question: z.string().optional() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ url, question }) => {
      const answer = await client.POST("/v1/sources/suggest", {
        body: { url, ...(question ? { question } : {}) },
      });
      return answer.data ? text(answer.data) : failed("Suggesting sources", refusal(answer));
    },
  );

  server.registerTool(
    "preview_source",
    {
      title: "Preview a source",
      description:
        "What a run of this source would read from its first pages: records, each column's fill, the checks, the cost, what to fix. Free; writes nothing. `source` is a dataset source object (as suggest_sources gives).",
      inputSchema: {
        source: z.record(z.string(), z.unknown()),
        columns: z.array(z.record(z.string(), z.unknown())).optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ source, columns }) => {
      const answer = await client.POST("/v1/sources/preview", {
        body: { source, ...(columns ? { columns } : {}) } as never,
      });
      return answer.data ? text(answer.data) : failed("Previewing the source", refusal(answer));
    },
  );

  return server;
};
