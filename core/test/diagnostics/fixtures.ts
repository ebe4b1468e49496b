import type {
  DatasetColumn,
  RecordFact,
  RecordedFailure,
  ReconciliationRecord,
  RunEvidence,
  RunPlanRecord,
  RunRecording,
} from "../../src/index.js";

/** Recorded runs, written out by hand: what the engine stores, without running it. */
export const site = "https://shop.example";
export const p1 = `${site}/p1`;
export const p2 = `${site}/p2`;

const column = (id: string, name: string, key = false, ownership: "collected" | "user" = "collected") =>
  ({ id, label: name.toUpperCase(), name, type: "string", key, ownership }) as unknown as DatasetColumn;

export const columns = [
  column("f-link", "link", true),
  column("f-title", "title"),
  column("f-price", "price"),
  column("f-isbn", "isbn"),
  column("f-notes", "notes", false, "user"),
];

type CellSpec = [fieldId: string, value: string | number | null, reason?: string, raw?: string];

export const fact = (rowKey: string | null, pageUrl: string, index: number, cells: CellSpec[]): RecordFact => ({
  rowKey,
  pageUrl,
  index,
  cells: cells.map(([fieldId, value, reason, raw]) => ({
    fieldId,
    value,
    missingReason: reason ?? null,
    raw: raw ?? (value === null ? null : String(value)),
  })),
});

/** A book with every value, or with an isbn not found. */
export const book = (key: string, page: string, index: number, isbn: string | null = `isbn-${key}`) =>
  fact(key, page, index, [
    ["f-link", key],
    ["f-title", `Title ${key}`],
    ["f-price", 1.5],
    isbn === null ? ["f-isbn", null, "not_found"] : ["f-isbn", isbn],
  ]);

export const artifact = (id: string, url: string) => ({
  id,
  runId: "7d3c2f1e-4b5a-4c6d-8e9f-0a1b2c3d4e5f" as never,
  kind: "page" as const,
  url,
  contentType: "text/html",
  sha256: "0".repeat(64),
  size: 10,
  truncated: false,
  body: null,
  createdAt: "2026-11-22T10:00:02.000Z",
});

export const recipe = {
  recipeVersion: 1,
  schemaVersion: 1,
  url: p1,
  pagination: "next-link",
  itemSelector: "article",
  maxPages: 10,
  maxItems: 1000,
  minimumItems: 1,
  render: "static",
  proxy: "auto",
  ignoreRobots: false,
  identityFieldIds: ["f-link"],
};

export const reconciliation = (over: Partial<ReconciliationRecord> = {}): ReconciliationRecord => ({
  new: 0,
  changed: 0,
  unchanged: 0,
  gone: 0,
  rowIds: {},
  created: [],
  goneKeys: [],
  changedKeys: [],
  returnedKeys: [],
  overridesKept: [],
  ...over,
});

const trace = (steps: number) => ({
  runId: "7d3c2f1e-4b5a-4c6d-8e9f-0a1b2c3d4e5f" as never,
  datasetId: "ds-1" as never,
  queueMs: 5000,
  wallMs: 1200,
  truncated: false,
  phases: [{ phase: "read" as const, count: steps, totalMs: 40, maxMs: 30 }],
  steps: Array.from({ length: steps }, (_, i) => ({
    stepId: `step-${i}`,
    attemptId: "attempt-1",
    phase: "read" as const,
    status: "succeeded" as const,
    startedAt: "2026-11-22T10:00:01.000Z",
  })),
  discovery: null,
  harnessVersion: null,
});

export const evidence = (over: {
  facts: RecordFact[];
  pages: Array<[string, string]>;
  failures?: RecordedFailure[];
  plan: Partial<RunPlanRecord>;
}): RunEvidence => ({
  trace: trace(over.pages.length + (over.failures?.length ?? 0)),
  artifacts: over.pages.map(([id, url]) => artifact(id, url)),
  facts: over.facts,
  failures: over.failures ?? [],
  plan: { recipe, checks: [], reconciliation: null, pagesToCharge: null, ...over.plan },
});

export const recording = (
  status: RunRecording["run"]["status"],
  recorded: RunEvidence | null,
  over: Partial<RunRecording["run"]> = {},
): RunRecording => ({
  run: {
    id: "7d3c2f1e-4b5a-4c6d-8e9f-0a1b2c3d4e5f" as never,
    status,
    checks: [],
    error: null,
    rowDeltas: { new: 0, changed: 0, gone: 0 },
    queuedAt: "2026-11-22T10:00:00.000Z",
    startedAt: "2026-11-22T10:00:05.000Z",
    completedAt: "2026-11-22T10:00:06.200Z",
    chargedPages: null,
    ...over,
  },
  columns,
  evidence: recorded,
});

export const passed = (checkId: string) => ({ checkId, passed: true, message: `${checkId} passed.` });
