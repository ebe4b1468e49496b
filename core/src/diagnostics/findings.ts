import { checkName, failedCheckLine } from "../rules/run-errors.js";
import { maxCellBytes } from "../engine/coerce.js";
import { cutSize } from "../reading/excerpt.js";
import { cellsArea, duplicatesOf } from "./areas.js";
import { type DiagnosticFinding, finding, plural } from "./model.js";
import type { RunIndex } from "./run-index.js";

/** What the run's status means, in plain words: one finding per outcome (codes in 0013). */
const statusFindings = (index: RunIndex): DiagnosticFinding[] => {
  const { run, evidence } = index.recording;
  const pages = index.plan?.pagesToCharge ?? null;
  switch (run.status) {
    case "succeeded": {
      const d = run.rowDeltas;
      return [
        finding(
          "run_accepted",
          `Every check passed and the output was accepted whole: ${d.new} new, ${d.changed} changed, ${d.gone} gone; ${plural(run.chargedPages ?? 0, "page")} charged.`,
        ),
      ];
    }
    case "held":
      if (index.plan?.drift && !index.plan.drift.accepted) {
        return [
          finding(
            "run_held_drift",
            "Every check passed, but the run does not look like the dataset; nothing was written or charged. The owner may accept it.",
          ),
        ];
      }
      return pages === null
        ? [finding("run_held", `The run was held before reading: ${run.error ?? "no reason recorded"}`)]
        : [
            finding(
              "run_held_insufficient_credits",
              `Every check passed, but the owner cannot pay for ${plural(pages, "page")}; nothing was written or charged.`,
            ),
          ];
    case "blocked": {
      const first = evidence?.failures[0];
      const where = first ? `${first.url} answered ${first.code}${first.status ? ` (HTTP ${first.status})` : ""}` : "";
      return [
        finding(
          "run_blocked",
          `The site refused every read${where ? `: ${where}` : ""}; nothing was written or charged.`,
        ),
      ];
    }
    case "failed": {
      const failed = run.checks.filter((c) => !c.passed);
      if (failed.length === 0) return [finding("run_failed", `The run failed: ${run.error ?? "no reason recorded"}`)];
      return [
        finding(
          "run_failed_checks",
          `${plural(failed.length, "check")} failed (${failed.map((c) => checkName(c.checkId, index.recording.columns)).join(", ")}); nothing was written or charged.`,
        ),
        ...failed.map((c) => finding(`check_failed:${c.checkId}`, failedCheckLine(c, index.recording.columns))),
      ];
    }
    default:
      return [finding("run_not_finished", `The run is ${run.status}: nothing is concluded yet.`)];
  }
};

/** Findings about what was read: drift, pages not read, identities, duplicates, lost cells, rows gone or back. */
const dataFindings = (index: RunIndex): DiagnosticFinding[] => {
  const found: DiagnosticFinding[] = (index.plan?.drift?.findings ?? []).map((f) => finding(f.code, f.message));
  // Research values refused at validation, by code: counted with the entities they were about.
  const refused = new Map<string, { count: number; entities: Set<string> }>();
  for (const f of index.recording.evidence?.failures ?? []) {
    if (f.stage !== "validation") continue;
    const seen = refused.get(f.code) ?? { count: 0, entities: new Set<string>() };
    seen.count++;
    if (f.entity) seen.entities.add(f.entity);
    refused.set(f.code, seen);
  }
  for (const [code, { count, entities }] of refused) {
    const named = [...entities].slice(0, 5).map((e) => JSON.stringify(e));
    found.push(
      finding(
        `values_refused:${code}`,
        `${plural(count, "value")} the model gave ${code === "entity_not_on_page" ? "named entities the page does not mention" : `were refused (${code})`}${named.length > 0 ? `: ${named.join(", ")}` : ""}.`,
      ),
    );
  }
  for (const f of index.notRead) {
    found.push(
      finding(
        `page_not_read:${f.code}`,
        `${f.url} was not read (${f.code}${f.status ? `, HTTP ${f.status}` : ""}): the records on it are unknown.`,
      ),
    );
  }
  if (index.unkeyed.length > 0) {
    found.push(
      finding(
        "identity_missing",
        `${plural(index.unkeyed.length, "record")} had no identity value and cannot be named.`,
      ),
    );
  }
  const duplicates = duplicatesOf(index);
  if (duplicates.entities > 0) {
    const names = duplicates.examples.map((e) => JSON.stringify(e.entity)).join(", ");
    found.push(finding("duplicate_keys", `${plural(duplicates.entities, "key")} were read more than once: ${names}.`));
  }
  for (const column of index.collected) {
    // A value longer than a cell holds is missing, never cut (coerce.ts): said as such.
    const sizes = index.records.flatMap(({ fact }) =>
      fact.cells.flatMap((cell) => {
        if (cell.fieldId !== column.id || cell.missingReason !== "extraction_failed" || cell.raw === null) return [];
        const size = cutSize(cell.raw);
        return size === null ? [] : [size];
      }),
    );
    if (sizes.length === 0) continue;
    found.push(
      finding(
        `cells_too_large:${column.id}`,
        `${column.label}: ${plural(sizes.length, "value")} read ${sizes.length === 1 ? "was" : "were"} longer than a cell holds (${maxCellBytes} bytes; the largest ${Math.max(...sizes)} bytes) and ${sizes.length === 1 ? "is" : "are"} missing (extraction_failed), never cut.`,
      ),
    );
  }
  for (const cells of cellsArea(index)) {
    if (cells.missing === 0) continue;
    const reasons = Object.entries(cells.reasons)
      .map(([reason, n]) => `${reason}: ${n}`)
      .join(", ");
    found.push(
      finding(
        `cells_missing:${cells.fieldId}`,
        `${cells.label} has no value in ${cells.missing} of ${plural(cells.observedRows, "record")} (${reasons}).`,
      ),
    );
  }
  const plan = index.plan?.reconciliation ?? null;
  if (plan && plan.gone > 0) {
    found.push(
      finding("rows_gone", `${plural(plan.gone, "row")} were not seen on a source read whole and went missing.`),
    );
  }
  if (plan && plan.returnedKeys.length > 0) {
    found.push(finding("rows_recovered", `${plural(plan.returnedKeys.length, "row")} missing before were seen again.`));
  }
  return found;
};

export const findingsOf = (index: RunIndex): DiagnosticFinding[] => [...statusFindings(index), ...dataFindings(index)];

/** What was not recorded, said as such: nothing is inferred from absence. */
export const unknownsOf = (index: RunIndex): string[] => {
  const { run, evidence } = index.recording;
  if (evidence === null) return [`Nothing was recorded for this run yet (it is ${run.status}).`];
  const unknowns: string[] = [];
  if (evidence.plan === undefined || evidence.plan === null) {
    unknowns.push(
      "This run was recorded before its plan was kept: the pinned recipe, the records each check names, the reconciliation and the pages to charge are not known.",
    );
  }
  // A search result not read hides only its own entities; a declared page not read, the pages after it too.
  const searched = (evidence.recipe?.searchEngine ?? null) !== null;
  for (const f of index.notRead) {
    unknowns.push(
      searched
        ? `${f.url} was not read (${f.code}): the entities on it are unknown; the other search results were read as usual.`
        : `${f.url} was not read (${f.code}): the entities on it, and any pages after it, are unknown.`,
    );
  }
  const coverage = run.checks.find((c) => c.checkId === "coverage");
  if (coverage && !coverage.passed && index.notRead.length === 0) {
    unknowns.push(`Reading stopped before the end of the source: ${coverage.message ?? "no reason recorded"}`);
  }
  if (index.unkeyed.length > 0) {
    unknowns.push(
      `${plural(index.unkeyed.length, "record")} had no identity value: which entities they are is unknown.`,
    );
  }
  if (index.plan !== null && index.plan.reconciliation === null && index.plan.recipe !== null) {
    unknowns.push(
      `Reconciliation was not reached (the run is ${run.status}): which rows would be new, changed or gone is unknown.`,
    );
  }
  if (evidence.trace.truncated) unknowns.push("The trace dropped its oldest steps: queue and wall time are unknown.");
  return unknowns;
};
