import type { DocumentElement, ParsedDocument } from "../ports/document-parser.js";
import type { DatasetColumn } from "../schema/column.js";
import type { ObservationEntry, ResearchRowIdentity } from "../schema/row.js";
import type { Source } from "../schema/source.js";
import { wellFormedText } from "../reading/excerpt.js";
import { type Cell, coerce } from "./coerce.js";

/** One record read from a page. */
export interface ExtractedRecord {
  readonly pageUrl: string;
  /** Position of the item on its page (0-based). */
  readonly index: number;
  /** The observation entry the record's cells cite. */
  readonly entryId: string;
  /** Collected cells by Field id. */
  readonly cells: ReadonlyMap<string, Cell>;
  /** Null when an identity value is missing. */
  readonly rowKey: string | null;
  /** Research runs: the entity the record stands for (the row's `identity`). */
  readonly identity?: ResearchRowIdentity;
  /**
   * Research runs: where each kept value was quoted, when it is not the record's own page and
   * entry (a merged entity's cells may come from several pages).
   */
  readonly cellSources?: ReadonlyMap<string, { readonly pageUrl: string; readonly entryId: string }>;
}

/** Attributes holding links: read as absolute URLs so a record keeps one key on every page. */
const linkAttributes = new Set(["href", "src", "action", "data-href", "data-src"]);

/** A field's value from the element its selector found in the item (the item itself without a selector). */
const readField = (
  document: ParsedDocument,
  element: DocumentElement | null,
  read: Source["fields"][number]["read"],
): string | null => {
  if (!element) return null;
  if (read.kind === "text") return wellFormedText(element.text());
  const name = read.attribute ?? "";
  const value = element.attribute(name);
  if (value === null) return null;
  if (!linkAttributes.has(name.toLowerCase())) return wellFormedText(value, "attribute");
  return wellFormedText(document.resolveUrl(value) ?? value, "attribute");
};

/**
 * The row key: the source-key value as text, or for a composite identity the JSON array of the
 * ordered values — unambiguous whatever characters the values contain.
 */
const rowKeyOf = (source: Source, cells: ReadonlyMap<string, Cell>, identityIds: ReadonlyArray<string>) => {
  const values = identityIds.map((id) => cells.get(id)?.value ?? null);
  if (values.some((v) => v === null || v === "")) return null;
  return source.identity.kind === "source-key" ? String(values[0]) : JSON.stringify(values);
};

export interface PageExtraction {
  readonly records: ReadonlyArray<ExtractedRecord>;
  readonly entries: ReadonlyArray<ObservationEntry>;
}

export const excerptBytes = 2048;

/** Reads every item container of a page, one relative read per collected column. */
export const extractPage = (
  document: ParsedDocument,
  pageUrl: string,
  source: Source,
  columns: ReadonlyArray<DatasetColumn>,
  limit: number,
): PageExtraction => {
  const idsByName = new Map(columns.map((c) => [c.name, c.id as string]));
  const typeById = new Map(columns.map((c) => [c.id as string, c.type]));
  // Which column each field fills and its type, looked up once per page rather than once per cell.
  // Fields reading the same selector share one lookup per item (a book's link and title are both
  // attributes of its "h3 > a"): `at` is the selector's place in `selectors`, -1 for the item itself.
  const selectors: string[] = [];
  const reads = source.fields.flatMap((field) => {
    const fieldId = idsByName.get(field.name);
    if (!fieldId) return [];
    const selector = field.read.selector;
    let at = selector ? selectors.indexOf(selector) : -1;
    if (selector && at < 0) at = selectors.push(selector) - 1;
    return [{ fieldId, type: typeById.get(fieldId) ?? "string", read: field.read, at }];
  });
  const identityNames = source.identity.kind === "source-key" ? [source.identity.field] : source.identity.fields;
  const identityIds = identityNames.map((name) => idsByName.get(name) ?? "");
  const items = document.root.select(source.itemSelector).slice(0, limit);
  const records: ExtractedRecord[] = [];
  const entries: ObservationEntry[] = [];
  items.forEach((item, index) => {
    const entryId = String(index);
    const excerpt = item.excerpt(excerptBytes);
    entries.push({ id: entryId, excerpt: wellFormedText(excerpt.text), truncated: excerpt.truncated });
    const found = selectors.map((selector) => item.first(selector));
    const cells = new Map<string, Cell>();
    for (const { fieldId, type, read, at } of reads) {
      cells.set(fieldId, coerce(readField(document, at < 0 ? item : (found[at] ?? null), read), type));
    }
    records.push({ pageUrl, index, entryId, cells, rowKey: rowKeyOf(source, cells, identityIds) });
  });
  return { records, entries };
};
