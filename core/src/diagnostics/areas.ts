import { searchQueries } from "../engine/research/recipe.js";
import { examplesMax } from "./model.js";
import type { RunIndex } from "./run-index.js";

/** Reasons that mean the site refused the read (SPEC.md's `blocked`), not a fault of ours. */
const refusals = new Set(["challenge", "forbidden", "rate_limited", "login_redirect", "empty_body"]);

/**
 * Request and plan: the recipe the run pinned. A search research run read no declared page: its
 * source is the search (engine, queries, results read and not), not the dataset's pagination.
 */
export const requestArea = (index: RunIndex) => {
  const recipe = index.plan?.recipe ?? null;
  if (recipe === null) return null;
  const research = index.recording.evidence?.recipe ?? null;
  const engine = research?.searchEngine ?? null;
  const reads = (index.recording.evidence?.trace.steps ?? []).filter((s) => s.phase === "read");
  return {
    recipeVersion: recipe.recipeVersion,
    schemaVersion: recipe.schemaVersion,
    source: {
      url: engine === null ? recipe.url : "",
      pagination: engine === null ? recipe.pagination : "search",
      // A research run's entities are the ones the model names, not items a selector matches.
      itemSelector: research === null ? recipe.itemSelector : "",
      identityFieldIds: recipe.identityFieldIds,
    },
    ...(research !== null && engine !== null
      ? {
          search: {
            engine,
            queries: searchQueries(research.plan, research.question, research.limits.maxQueries),
            results: reads.length,
            read: reads.filter((s) => s.status === "succeeded").length,
            notRead: reads.filter((s) => s.status === "failed").length,
          },
        }
      : {}),
    limits: { maxPages: recipe.maxPages, maxItems: recipe.maxItems, minimumItems: recipe.minimumItems },
    render: recipe.render,
    proxy: recipe.proxy,
    robots: recipe.ignoreRobots ? ("ignored" as const) : ("obeyed" as const),
  };
};

/** Sources: every page the run asked for, read or not, with its evidence. */
export const sourcesArea = (index: RunIndex) => {
  const evidence = index.recording.evidence;
  if (evidence === null) return [];
  const reused = new Map((index.plan?.reused ?? []).map(({ url, ...from }) => [url, from]));
  // Each page once: its body as read (or, for research, its cleaned text), never the model's outputs.
  const read = [...index.pagesRead].map(([url, id]) => ({
    url,
    outcome: "read" as const,
    failure: null,
    records: index.records.filter((r) => r.fact.pageUrl === url).length,
    evidenceIds: [id],
    reused: reused.get(url) ?? null,
  }));
  const failed = index.notRead.map((f) => ({
    url: f.url ?? "",
    outcome: refusals.has(f.code) ? ("refused" as const) : ("failed" as const),
    failure: { reason: f.code, status: f.status ?? null, detail: f.detail },
    records: 0,
    evidenceIds: f.stepId ? [f.stepId] : [],
    reused: null,
  }));
  return [...read, ...failed];
};

/** Cells: per collected column, how many records had it read and why values are missing. */
export const cellsArea = (index: RunIndex) =>
  index.collected.map((column) => {
    const cells = index.records.flatMap((view) => {
      const cell = view.fact.cells.find((c) => c.fieldId === column.id);
      return cell ? [{ view, cell }] : [];
    });
    const missing = cells.filter(({ cell }) => cell.missingReason !== null);
    const reasons: Record<string, number> = {};
    for (const { cell } of missing) {
      const reason = cell.missingReason as string;
      reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
    return {
      fieldId: column.id as string,
      label: column.label,
      observedRows: cells.length,
      missing: missing.length,
      reasons,
      examples: missing.slice(0, examplesMax).map(({ view, cell }) => ({
        entity: index.nameOf(view.fact.rowKey),
        rowId: view.fact.rowKey === null ? null : index.rowIdOf(view.fact.rowKey),
        reason: cell.missingReason,
        evidenceId: view.evidenceId,
      })),
    };
  });

/** Duplicates: entities read more than once (the first record counts, the others are dropped). */
export const duplicatesOf = (index: RunIndex) => {
  // Ambiguous by a research entity's conflicting values alone is no duplicate: it was merged once.
  const ambiguous = [...index.entities.values()].filter((e) => e.records.length > 1);
  return {
    entities: ambiguous.length,
    examples: ambiguous.slice(0, examplesMax).map((e) => ({
      entity: e.entity,
      code: "duplicate_key",
      evidenceId: e.records[1]?.evidenceId ?? e.records[0]?.evidenceId ?? "",
    })),
  };
};

/** Reconciliation: the plan computed against the current rows, and whether it was applied. */
export const reconciliationArea = (index: RunIndex) => {
  const plan = index.plan?.reconciliation ?? null;
  if (plan === null) return null;
  return {
    applied: index.recording.run.status === "succeeded",
    new: plan.new,
    changed: plan.changed,
    unchanged: plan.unchanged,
    gone: plan.gone,
    recovered: plan.returnedKeys.length,
    duplicates: duplicatesOf(index),
    overridesKept: {
      cells: plan.overridesKept.length,
      examples: plan.overridesKept.slice(0, examplesMax).map((o) => ({
        entity: index.nameOf(o.rowKey),
        rowId: index.rowIdOf(o.rowKey),
        fieldId: o.fieldId,
      })),
    },
  };
};

/** Completion: coverage, each check with the records it names, and whether the output was accepted. */
export const completionArea = (index: RunIndex) => {
  const { run } = index.recording;
  const coverage = run.checks.find((c) => c.checkId === "coverage");
  return {
    coverage: coverage ? { complete: coverage.passed, message: coverage.message ?? null } : null,
    checks: run.checks.map((check) => {
      const names = index.plan?.checks.find((n) => n.checkId === check.checkId)?.records ?? [];
      return {
        checkId: check.checkId,
        passed: check.passed,
        message: check.message ?? null,
        recordsNamed: names.length,
        records: names.slice(0, examplesMax * 4).map((r) => {
          const page = index.pageEvidenceOf(r.pageUrl);
          return { entity: index.nameOf(r.rowKey), url: r.pageUrl, evidenceId: page ? `${page}#${r.index}` : null };
        }),
      };
    }),
    outputComplete: run.status === "succeeded",
  };
};

/** Drift (decision 0040): each tripped rule's figures, its examples pointing at the records read. */
export const driftArea = (index: RunIndex) => {
  const drift = index.plan?.drift;
  if (!drift) return undefined;
  return {
    presentRows: drift.presentRows,
    records: drift.records,
    accepted: drift.accepted,
    rules: drift.findings.map(({ examples, ...rule }) => ({
      ...rule,
      examples: examples.map(({ index: at, ...example }) => {
        const page = example.url === null || at === null ? null : index.pageEvidenceOf(example.url);
        return { ...example, evidenceId: page === null ? null : `${page}#${at}` };
      }),
    })),
  };
};

const costReason = (index: RunIndex, pages: number | null): string => {
  const { run } = index.recording;
  switch (run.status) {
    case "succeeded":
      return `Every check passed: ${run.chargedPages ?? 0} page(s) charged.`;
    case "held":
      if (pages === null) return `Held before reading: ${run.error ?? "no reason recorded"}`;
      return index.plan?.drift && !index.plan.drift.accepted
        ? "Every check passed, but the run does not look like the dataset (drift): nothing charged."
        : `Every check passed, but the owner cannot pay for ${pages} page(s): nothing charged.`;
    case "blocked":
      return "The site refused every read: nothing charged.";
    case "failed":
      return "The run failed: nothing charged.";
    default:
      return "The run has not finished: nothing charged yet.";
  }
};

/** Cost: pages charged, or why not. */
export const costArea = (index: RunIndex) => {
  const evidence = index.recording.evidence;
  const pages = index.plan?.pagesToCharge ?? null;
  return {
    pagesRead: evidence ? index.pagesRead.size : null,
    pagesNotRead: evidence ? index.pagesNotRead.size : null,
    pagesToCharge: pages,
    pagesCharged: index.recording.run.status === "succeeded" ? (index.recording.run.chargedPages ?? 0) : 0,
    reason: costReason(index, pages),
  };
};

/** Timing: queue and wall time and the phase totals of the trace. */
export const timingArea = (index: RunIndex) => {
  const trace = index.recording.evidence?.trace ?? null;
  const { run } = index.recording;
  return {
    queuedAt: run.queuedAt,
    startedAt: run.startedAt,
    completedAt: run.completedAt,
    queueMs: trace?.queueMs ?? null,
    wallMs: trace?.wallMs ?? null,
    phases: trace?.phases ?? [],
    truncated: trace?.truncated ?? false,
  };
};
