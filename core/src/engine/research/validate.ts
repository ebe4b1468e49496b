import type { RecordedFailure, RunEvidence } from "../../run-domain.js";
import type { DatasetColumn } from "../../schema/column.js";
import type { EntityKind, ExtractionOutput } from "../../schema/research.js";
import type { ObservationEntry } from "../../schema/row.js";
import { utf8Excerpt } from "../../reading/excerpt.js";
import { columnWords, type GroundedCell, groundCell, groundingText, type Refusal } from "./grounding.js";
import { maxRowsPerPage } from "./prompts.js";
import { decimalSignOf } from "./quantities.js";
import { tiedAliases } from "./ties.js";
import { mentionKey, namesIn } from "./mentions.js";
import { blocksOf } from "./blocks.js";

/** A candidate row that survived validation: its entity name occurs on the page. */
export interface Candidate {
  readonly pageUrl: string;
  readonly index: number;
  readonly kind: EntityKind;
  readonly name: string;
  /** Other names the page ties to it (`tiedAliases`: a legal-form variant, "(IBM)", "short for"). */
  readonly aliases: ReadonlyArray<string>;
  /** Collected cells by Field id, with the evidence entry of each kept value. */
  readonly cells: ReadonlyMap<string, GroundedCell & { readonly entryId: string | null }>;
  /** The entry holding the entity's name: the row's evidence when a cell has none of its own. */
  readonly nameEntryId: string;
}

export interface PageValidation {
  readonly candidates: ReadonlyArray<Candidate>;
  /** Candidates the model returned (at most 25 are considered). */
  readonly candidateRows: number;
  /** The names of the candidates rejected (their entity is not on the page), as the model gave them. */
  readonly rejectedNames: ReadonlyArray<string>;
  /** The page's observation entries: entity names and the quotes of kept values. */
  readonly entries: ReadonlyArray<ObservationEntry>;
  readonly refusals: ReadonlyArray<{
    readonly entity: string;
    readonly fieldId: string;
    /** The column's label, so the diagnosis a person reads names the column, not its id. */
    readonly column: string;
    readonly code: Refusal;
    /** What the model answered, so a diagnosis can show the value and quote it refused. */
    readonly value: string | null;
    readonly quote: string | null;
  }>;
}

/**
 * The validate phase for one page: grounds every candidate against the page's cleaned text.
 * A candidate whose name is not on the page is rejected; a value whose quote is not on the page
 * (or that does not convert to its column's type) is refused and the cell is `extraction_failed`.
 */
export const validatePage = (
  pageUrl: string,
  cleanedText: string,
  output: ExtractionOutput,
  columns: ReadonlyArray<DatasetColumn>,
  /** Where this answer's rows start among the page's (a page read in chunks numbers them on). */
  firstIndex = 0,
  /** The page's language (`<html lang>`): how its numbers are written ("5.000" is 5000 in German). */
  lang: string | null = null,
  /** Whether the text marks its headings (`headingLine`); text recorded before they were marked does not. */
  headingsMarked = false,
): PageValidation => {
  const sign = decimalSignOf(lang);
  const page = groundingText(cleanedText);
  const pageLower = page.toLowerCase();
  // The page's blocks (paragraphs, list items, table rows: the cleaned text keeps each on a line).
  const blocks = blocksOf(cleanedText, headingsMarked);
  const rows = output.rows.slice(0, maxRowsPerPage);
  // Every name the answer gives: a name is found on its own, not inside another entity's longer name.
  const allNames = rows.flatMap((row) => [row.entity.name, ...row.entity.aliases].map(mentionKey));
  const mentions = (text: string, names: ReadonlyArray<string>) => {
    const keys = names.map(mentionKey);
    return namesIn(
      text,
      keys,
      allNames.filter((n) => !keys.includes(n)),
    );
  };
  // The entities the answer names that are on the page, each by its name and the names the page ties to it.
  const onPage = rows
    .map((row) => ({ name: row.entity.name.trim(), aliases: row.entity.aliases }))
    .filter(({ name }) => mentions(pageLower, [name]))
    .map(({ name, aliases }) => [name, ...tiedAliases(page, name, aliases)]);
  /** Whether a text names the entity and no other entity on the page. */
  const namesAlone = (text: string, names: ReadonlyArray<string>) =>
    mentions(text, names) && onPage.every((other) => other.some((n) => names.includes(n)) || !mentions(text, other));
  // A page about one entity (the answer names one that is on the page) speaks of it throughout.
  const aboutOne = onPage.length === 1;
  /**
   * The quote names the entity, or stands in a line of a block that does; or in a block naming it
   * alone, its lines broken by <br> kept together; or in a block naming no entity, under a heading
   * naming it alone (the innermost heading naming any): what it says is about the entity.
   */
  const aboutEntity = (quote: string, names: ReadonlyArray<string>): boolean => {
    if (aboutOne) return true;
    const q = mentionKey(quote);
    if (mentions(q, names)) return true;
    const namesAny = (text: string) => onPage.some((other) => mentions(text, other));
    return blocks.some((block) => {
      if (!block.text.includes(q)) return false;
      if (block.lines.some((line) => line.includes(q) && mentions(line, names))) return true;
      if (namesAny(block.text)) return block.lines.length > 1 && namesAlone(block.text, names);
      const heading = block.headings.findLast(namesAny);
      return heading !== undefined && namesAlone(heading, names);
    });
  };
  const candidates: Candidate[] = [];
  const entries: ObservationEntry[] = [];
  const refusals: Array<PageValidation["refusals"][number]> = [];
  const rejectedNames: string[] = [];
  const entry = (id: string, text: string) => {
    const excerpt = utf8Excerpt(text);
    entries.push({ id, excerpt: excerpt.text, truncated: excerpt.truncated });
    return id;
  };
  rows.forEach((row, position) => {
    const index = firstIndex + position;
    const name = row.entity.name.trim();
    if (!mentions(pageLower, [name])) {
      rejectedNames.push(name);
      return;
    }
    const cells = new Map<string, GroundedCell & { entryId: string | null }>();
    const aliases = tiedAliases(page, name, row.entity.aliases).filter((a) => a !== name);
    const names = [name, ...aliases];
    const nameEntryId = entry(`${index}:entity`, name);
    for (const column of columns) {
      const answer = row.cells.find((c) => c.column === column.name) ?? {
        status: "not_on_page" as const,
        value: null,
        quote: null,
      };
      const quoted = groundCell(answer, column.type, page, columnWords(column), sign);
      const grounded =
        quoted.quote !== null && !aboutEntity(quoted.quote, names)
          ? {
              cell: { value: null, missingReason: "extraction_failed" as const, raw: answer.value },
              refusal: "quote_not_about_entity" as const,
              quote: null,
            }
          : quoted;
      if (grounded.refusal !== null) {
        refusals.push({
          entity: name,
          fieldId: column.id,
          column: column.label,
          code: grounded.refusal,
          value: answer.value,
          quote: answer.quote,
        });
      }
      const entryId = grounded.quote === null ? null : entry(`${index}:${column.name}`, grounded.quote);
      cells.set(column.id, { ...grounded, entryId });
    }
    candidates.push({ pageUrl, index, kind: row.entity.kind, name, aliases, cells, nameEntryId });
  });
  return {
    candidates,
    candidateRows: rows.length,
    rejectedNames,
    entries,
    refusals,
  };
};

/** The validations of a page's chunks as the page's one validation (rows numbered on per chunk). */
export const combineValidations = (parts: ReadonlyArray<PageValidation>): PageValidation => ({
  candidates: parts.flatMap((p) => p.candidates),
  candidateRows: parts.reduce((n, p) => n + p.candidateRows, 0),
  rejectedNames: parts.flatMap((p) => p.rejectedNames),
  entries: parts.flatMap((p) => p.entries),
  refusals: parts.flatMap((p) => p.refusals),
});

/** Whether a recorded refusal is about `column`: by its field, or by the id its detail named before the field was recorded. */
export const refusalIsAbout = (
  failure: Pick<RecordedFailure, "detail" | "fieldId">,
  column: { readonly id: string },
) => (failure.fieldId === undefined ? failure.detail.includes(column.id) : failure.fieldId === column.id);

/** Validation failures and refused values as recorded facts, for diagnostics. */
export const validationFailures = (url: string, v: PageValidation): Array<RunEvidence["failures"][number]> => [
  ...v.refusals.map((r) => ({
    stage: "validation",
    code: r.code ?? "refused",
    detail:
      `${r.entity}: the value of ${r.column} was refused (${r.code})` +
      `${r.value === null ? "" : `: ${JSON.stringify(r.value.slice(0, 100))}`}` +
      `${r.quote === null ? "" : ` quoting ${JSON.stringify(r.quote.slice(0, 200))}`}.`,
    url,
    entity: r.entity,
    fieldId: r.fieldId,
  })),
  ...v.rejectedNames.map((entity) => ({
    stage: "validation",
    code: "entity_not_on_page",
    detail: `${entity.slice(0, 200) || "A candidate row"}: the model named an entity the page does not mention; it was rejected.`,
    url,
    entity,
  })),
];
