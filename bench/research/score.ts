import { bareNameKey } from "@gleaner/core";
import type { Company, CompanyColumn, CompanyWebSpec } from "@gleaner/conformance";

/** One written row as the bench scores it: the names it goes by and its values by column. */
export interface ScoredRow {
  readonly names: ReadonlyArray<string>;
  readonly values: Partial<Record<CompanyColumn, string | number | null>>;
}

export interface Score {
  /** Cells written, and of those the ones the company's truth holds. */
  readonly written: number;
  readonly correct: number;
  /** Facts the readable pages state, and of those the ones written right. */
  readonly stated: number;
  readonly found: number;
  /** Rows that are no company of the web (an invented name). */
  readonly inventedRows: number;
  /** The wrong cells, as "company column: written (truth)". */
  readonly wrong: ReadonlyArray<string>;
}

const namesOf = (c: Company) => [c.name, c.bare, ...(c.acronym ? [c.acronym] : [])].map(bareNameKey);

/**
 * Precision and recall of cells against the web's truth: a row is the company one of its names is
 * (legal form aside); every value it holds is written, and right when it equals the company's fact.
 * Recall counts only the facts some readable page states, so a page answering 403 costs no recall.
 */
export const score = (web: CompanyWebSpec, rows: ReadonlyArray<ScoredRow>): Score => {
  const stated = new Set(web.pages.flatMap((p) => p.states.map(([i, column]) => `${i}:${column}`)));
  const found = new Set<string>();
  let written = 0;
  let correct = 0;
  let inventedRows = 0;
  const wrong: string[] = [];
  for (const row of rows) {
    const keys = row.names.map(bareNameKey);
    const at = web.companies.findIndex((c) => namesOf(c).some((n) => keys.includes(n)));
    if (at < 0) inventedRows += 1;
    for (const [column, value] of Object.entries(row.values)) {
      if (value === null || value === undefined) continue;
      written += 1;
      const truth = at < 0 ? undefined : web.companies[at]!.facts[column as CompanyColumn];
      if (truth !== undefined && String(truth) === String(value)) {
        correct += 1;
        if (stated.has(`${at}:${column}`)) found.add(`${at}:${column}`);
      } else wrong.push(`${row.names[0]} ${column}: ${value} (${truth ?? "no such company"})`);
    }
  }
  return { written, correct, stated: stated.size, found: found.size, inventedRows, wrong };
};

export const sum = (scores: ReadonlyArray<Score>): Score => ({
  written: scores.reduce((n, s) => n + s.written, 0),
  correct: scores.reduce((n, s) => n + s.correct, 0),
  stated: scores.reduce((n, s) => n + s.stated, 0),
  found: scores.reduce((n, s) => n + s.found, 0),
  inventedRows: scores.reduce((n, s) => n + s.inventedRows, 0),
  wrong: scores.flatMap((s) => s.wrong),
});
