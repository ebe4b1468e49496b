import * as Effect from "effect/Effect";
import { utf8Excerpt } from "../reading/excerpt.js";
import { pageIdentity, pagesToCharge } from "../rules/page-identity.js";
import type { ColumnInput, DatasetColumn } from "../schema/column.js";
import { type FieldId, newId } from "../schema/ids.js";
import type { MissingReason, Scalar } from "../schema/row.js";
import type { Preview, PreviewField, PreviewRecord, PreviewWarning } from "../schema/sources.js";
import type { Source } from "../schema/source.js";
import { runChecks } from "./checks.js";
import type { Cell } from "./coerce.js";
import { excerptBytes } from "./extract.js";
import { readSource, type ReadOutcome } from "./read.js";
import { TraceRecorder } from "./trace.js";

/** A preview shows at most this many records; every record still counts in `fields` and `checks`. */
export const previewRecordLimit = 100;

/** Without the request's columns: one string column per field (the text read), keyed as the identity says. */
export const defaultColumns = (source: Source): ColumnInput[] => {
  const identity = source.identity.kind === "source-key" ? [source.identity.field] : source.identity.fields;
  return source.fields.map((f) => ({
    name: f.name,
    type: "string",
    ownership: "collected",
    key: identity.includes(f.name),
  }));
};

/**
 * The columns a preview types its values by, as stored columns whose id is their name, so checks
 * read present:<name>.
 */
export const previewColumns = (columns: ReadonlyArray<ColumnInput>): DatasetColumn[] =>
  columns.map((c) => ({
    id: c.name as FieldId,
    label: c.label ?? c.name,
    ownership: c.ownership,
    name: c.name,
    type: c.type,
    key: c.key,
  }));

/** A value as a preview shows it: text capped like an evidence excerpt (2048 UTF-8 bytes). */
const shown = (value: Scalar): Scalar => (typeof value === "string" ? utf8Excerpt(value, excerptBytes).text : value);

const recordsOf = (read: ReadOutcome, nameById: ReadonlyMap<string, string>): PreviewRecord[] =>
  read.records.slice(0, previewRecordLimit).map((record) => {
    const values: Record<string, Scalar> = {};
    const missingReasons: Record<string, MissingReason> = {};
    record.cells.forEach((cell, id) => {
      const name = nameById.get(id) ?? id;
      values[name] = shown(cell.value);
      if (cell.missingReason !== null) missingReasons[name] = cell.missingReason;
    });
    return { pageUrl: record.pageUrl, index: record.index, values, missingReasons };
  });

const fieldsOf = (source: Source, read: ReadOutcome): PreviewField[] =>
  source.fields.map((field) => {
    const cells = read.records.map((r) => r.cells.get(field.name)).filter((c): c is Cell => c !== undefined);
    const reasons: Partial<Record<MissingReason, number>> = {};
    const examples: Scalar[] = [];
    let filled = 0;
    for (const cell of cells) {
      if (cell.value !== null) {
        filled++;
        if (examples.length < 3 && !examples.includes(shown(cell.value))) examples.push(shown(cell.value));
      } else {
        const reason = cell.missingReason ?? "unknown";
        reasons[reason] = (reasons[reason] ?? 0) + 1;
      }
    }
    return { name: field.name, filled, missing: cells.length - filled, reasons, examples };
  });

/** What an owner should look at before creating the dataset, each pointing at the part to change. */
const warningsOf = (source: Source, read: ReadOutcome, fields: ReadonlyArray<PreviewField>): PreviewWarning[] => {
  const warnings: PreviewWarning[] = [];
  for (const page of read.pages) {
    if (page.records.length === 0) {
      warnings.push({
        code: "no_items",
        message: `The item selector "${source.itemSelector}" matched nothing on ${page.page.finalUrl}.`,
        path: "/source/itemSelector",
      });
    }
  }
  const total = read.records.length;
  source.fields.forEach((field, i) => {
    const summary = fields[i];
    if (!summary || total === 0 || summary.filled > 0) return;
    const where = field.read.selector === undefined ? "the item" : `"${field.read.selector}"`;
    const notFound = (summary.reasons.not_found ?? 0) === total;
    warnings.push({
      code: notFound ? "field_not_found" : "field_not_converted",
      message: notFound
        ? `${field.name}: ${where} found nothing in 0 of ${total} records.`
        : `${field.name}: no value read converts to its column's type in ${total} records.`,
      path: field.read.selector === undefined ? `/source/fields/${i}/read` : `/source/fields/${i}/read/selector`,
    });
  });
  const last = read.pages[read.pages.length - 1];
  const failed = read.failures.length > 0;
  if (!failed && last && source.pagination.kind !== "none") {
    const next = last.stored.next;
    const seen = new Set(read.pages.flatMap((p) => [p.page.requestedUrl, p.page.finalUrl].map(pageIdentity)));
    if (next !== null && seen.has(pageIdentity(next))) {
      warnings.push({
        code: "pagination_loop",
        message: `The next page of ${last.page.finalUrl} is ${next}, already read: pagination ends there.`,
        path: source.pagination.kind === "next-link" ? "/source/pagination/selector" : "/source/pagination/pattern",
      });
    } else if (next === null && read.pages.length === 1 && source.pagination.kind === "next-link") {
      warnings.push({
        code: "next_link_not_found",
        message: `The next-page selector "${source.pagination.selector}" found no link on ${last.page.finalUrl}: a run reads this one page.`,
        path: "/source/pagination/selector",
      });
    }
  }
  if (read.unread !== undefined) {
    warnings.push({
      code: "more_pages",
      message: `The preview stopped after ${read.pages.length} pages; a run goes on to ${read.unread}.`,
    });
  }
  for (const failure of read.failures) {
    warnings.push({ code: "read_failed", message: `${failure.url}: ${failure.failure.reason}: ${failure.message}` });
  }
  return warnings;
};

/**
 * What a run over the pages a preview read would cost when they are all it reads (`complete`):
 * the credits it would be charged, counted by the rule the charge itself uses.
 */
export const previewEstimate = (pageUrls: ReadonlyArray<string>, complete: boolean): Preview["estimate"] => {
  const pages = complete ? pagesToCharge(pageUrls) : null;
  return { complete, pages, credits: pages };
};

/**
 * Reads up to `pages` pages of a source exactly as a run reads them (the same fetcher, guards and
 * pagination) and reports what a run would get from them. Nothing is stored: the trace goes nowhere
 * and no kept read is asked for. `session` is what the reads share as a run's reads do (a browser
 * context and its cookies): one request's own, never another's.
 */
export const previewSource = Effect.fn("source.preview")(function* (
  source: Source,
  columns: ReadonlyArray<DatasetColumn>,
  pages: number,
  session: string = newId(),
) {
  const read = yield* readSource(source, columns, new TraceRecorder(session), null, pages);
  const nameById = new Map(columns.map((c) => [c.id as string, c.name]));
  const fields = fieldsOf(source, read);
  // Over the pages read, coverage is complete unless a read failed or the source's own limits ended it.
  const { results } = runChecks(source, columns, read.records, read.coverage);
  const checks =
    read.unread === undefined
      ? results
      : results.map((c) =>
          c.checkId === "coverage"
            ? { ...c, message: `${read.pages.length} pages previewed; a run reads on from ${read.unread}.` }
            : c,
        );
  const complete = read.unread === undefined && read.coverage.complete;
  const preview: Preview = {
    pages: [
      ...read.pages.map((p) => ({
        url: p.page.finalUrl,
        status: "read" as const,
        readFailure: null,
        records: p.records.length,
        nextUrl: p.stored.next,
      })),
      ...read.failures.map((f) => ({
        url: f.url,
        status: "failed" as const,
        readFailure: f.failure,
        records: 0,
        nextUrl: null,
      })),
    ],
    records: recordsOf(read, nameById),
    fields,
    checks,
    estimate: previewEstimate(
      read.pages.map((p) => p.page.finalUrl),
      complete,
    ),
    warnings: warningsOf(source, read, fields),
  };
  return preview;
});
