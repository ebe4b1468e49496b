import { parseNumber } from "../engine/coerce.js";
import { resolveReference } from "../reading/excerpt.js";
import type { ColumnType } from "../schema/column.js";
import type { SourceRead } from "../schema/source.js";
import { fieldSelectorFor, isStableClass } from "./selectors.js";
import { isInside, type PageNode, type PageTree } from "./page-tree.js";

/** One field a suggestion reads from each record, with what it read on this page. */
export interface FoundField {
  readonly read: SourceRead;
  /** What the value is, guessed from the markup and the values (named and typed from it). */
  readonly kind: "link" | "image" | "title" | "price" | "date" | "number" | "coded" | "text";
  /** A name the markup gives it (itemprop, a shared aria-label, a table header, a class), when it gives one. */
  readonly hint: string | null;
  /** The hint is a name a person gave the field (not a class, which is read for a usual word in it). */
  readonly named: boolean;
  readonly type: ColumnType;
  /** The value read in each record (null where the record has none). */
  readonly values: ReadonlyArray<string | null>;
}

const linkAttributes = new Set(["href", "src", "data-src"]);
const priceLike =
  /(?:[$€£¥₹]|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|INR)\b)\s?-?\d|\d[\d.,]*\s?(?:[$€£¥₹]|\b(?:USD|EUR|GBP|kr|zł)\b)/;
const numberLike = /^[^\d\p{L}]{0,3}-?\d[\d.,\s]*(?:\s?[%\p{L}.]{0,12})?$/u;
const dateLike =
  /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|\b\d+ (?:second|minute|hour|day|week|month|year)s? ago\b/i;

/** An element's place in its record, by tag and first class: how like parts of records are matched. */
const stepKey = (node: PageNode) => `${node.tag}.${node.classes.find(isStableClass) ?? ""}`;

/**
 * The first element of each path (from the record down, by tag and first class) in each record, in
 * document order: the like parts of records, null where a record has none.
 */
export const recordParts = (records: ReadonlyArray<PageNode>) => {
  const slots = new Map<string, Array<PageNode | null>>();
  records.forEach((record, index) => {
    const stack: Array<[PageNode, string]> = record.children
      .map((c) => [c, stepKey(c)] as [PageNode, string])
      .reverse();
    while (stack.length > 0) {
      const [node, path] = stack.pop()!;
      if (node.tag === "script" || node.tag === "style" || node.tag === "svg") continue;
      let slot = slots.get(path);
      if (!slot) {
        slot = new Array(records.length).fill(null);
        slots.set(path, slot);
      }
      slot[index] ??= node;
      for (let i = node.children.length - 1; i >= 0; i--) {
        const child = node.children[i]!;
        stack.push([child, `${path}>${stepKey(child)}`]);
      }
    }
  });
  return slots;
};

const varies = (values: ReadonlyArray<string | null>): boolean => {
  const present = values.filter((v): v is string => v !== null && v !== "");
  if (present.length < Math.max(2, Math.ceil(values.length * 0.4))) return false;
  return new Set(present).size >= Math.min(present.length, Math.max(2, Math.ceil(present.length * 0.2)));
};

const share = (values: ReadonlyArray<string | null>, test: (v: string) => boolean) => {
  const present = values.filter((v): v is string => v !== null && v !== "");
  return present.length === 0 ? 0 : present.filter(test).length / present.length;
};

/** The classes an element has in some records and not in others: what a class-coded value says. */
const codedClasses = (targets: ReadonlyArray<PageNode | null>) => {
  const present = targets.filter((t): t is PageNode => t !== null);
  const common = present[0]?.classes.filter((c) => present.every((t) => t.classes.includes(c))) ?? [];
  return targets.map((t) => {
    if (!t) return null;
    const own = t.classes.filter((c) => !common.includes(c));
    return own.length > 0 ? (t.attributes.class ?? null) : null;
  });
};

/** A read's selector, absent for the record itself. */
const at = (selector: string | undefined) => (selector === undefined ? {} : { selector });

/** A table's header text for the column of each cell a slot's elements sit in. */
const headerOf = (tree: PageTree, target: PageNode): string | null => {
  let cell: PageNode | null = target;
  while (cell && cell.tag !== "td" && cell.tag !== "th") cell = cell.parent;
  const row = cell?.parent;
  if (!cell || !row || row.tag !== "tr") return null;
  const column = row.children.filter((c) => c.tag === "td" || c.tag === "th").indexOf(cell);
  let table: PageNode | null = row.parent;
  while (table && table.tag !== "table") table = table.parent;
  const headerRow = table
    ? tree.byTag.get("tr")?.find((tr) => tr.children.some((c) => c.tag === "th") && isInside(tr, table!))
    : null;
  const header = headerRow?.children.filter((c) => c.tag === "td" || c.tag === "th")[column];
  const text = header ? tree.text(header) : "";
  return text === "" ? null : text;
};

/** An aria-label names a field only when it is the same in every record (else it is a value). */
const sharedLabel = (present: ReadonlyArray<PageNode>): string | undefined => {
  const label = present[0]?.attributes["aria-label"];
  return label !== undefined && present.every((t) => t.attributes["aria-label"] === label) ? label : undefined;
};

const nameOf = (tree: PageTree, target: PageNode, present: ReadonlyArray<PageNode>): string | null =>
  target.attributes.itemprop ?? sharedLabel(present) ?? headerOf(tree, target);

const classHint = (target: PageNode): string | null =>
  target.classes.find((c) => isStableClass(c) && c.length > 2 && !/^(?:col|row|span|pull|float|text|d|p|m)-/.test(c)) ??
  null;

/**
 * Every field that varies across the records: links, images, text (typed as number when it reads as
 * one), attributes that carry a value (datetime, title, content) and class-coded values (a rating
 * written as "star-rating Three"). Each has a selector verified on every record; fields that read
 * the same values as an earlier one are left out.
 */
export const findFields = (tree: PageTree, records: ReadonlyArray<PageNode>, baseUrl: string): FoundField[] => {
  const fields: FoundField[] = [];
  const seen = new Set<string>();
  const keep = (field: FoundField) => {
    const signature = JSON.stringify(field.values);
    if (seen.has(signature) || !varies(field.values)) return;
    seen.add(signature);
    fields.push(field);
  };
  // The record itself first (a link as a record has its address), then its parts in document order.
  for (const targets of [records, ...recordParts(records).values()]) {
    const present = targets.filter((t): t is PageNode => t !== null);
    if (present.length < Math.max(2, records.length * 0.4)) continue;
    const tag = present[0]!.tag;
    const self = targets === records;
    const found = self ? undefined : fieldSelectorFor(tree, records, targets);
    if (found === null) continue;
    const selector = found;
    const given = nameOf(tree, present[0]!, present);
    const hint = given ?? classHint(present[0]!);
    const named = given !== null;
    const attribute = (name: string, kind: FoundField["kind"]) => {
      const values = targets.map((t) => {
        const value = t?.attributes[name];
        if (value === undefined || value.trim() === "") return null;
        return linkAttributes.has(name) ? (resolveReference(baseUrl, value) ?? value) : value.trim();
      });
      keep({
        read: { ...at(selector), kind: "attribute", attribute: name },
        kind,
        hint,
        named,
        type: "string",
        values,
      });
    };
    if (tag === "a" && present.some((t) => t.attributes.href)) attribute("href", "link");
    if (tag === "img") {
      attribute(present.some((t) => t.attributes["data-src"]) ? "data-src" : "src", "image");
      attribute("alt", "title");
    }
    if (tag === "time") attribute("datetime", "date");
    if (tag === "meta") attribute("content", "text");
    if (present.some((t) => t.attributes.title)) attribute("title", "title");
    const coded = codedClasses(targets);
    if (coded.some((c) => c !== null)) {
      keep({
        read: { ...at(selector), kind: "attribute", attribute: "class" },
        kind: "coded",
        hint,
        named,
        type: "string",
        values: coded,
      });
    }
    // Text is read from an element that says one thing: its own text, or one child's (a container's
    // text runs several together), so a wrapper of the record's parts is left out.
    const container = present.some(
      (t) =>
        !t.content.some((c) => typeof c === "string" && c.trim() !== "") &&
        t.children.filter((c) => tree.hasText(c)).length > 1,
    );
    // The record's own text is offered only when nothing inside it says anything apart.
    if (container) continue;
    const texts = targets.map((t) => (t ? tree.text(t) || null : null));
    const lengths = texts.filter((t): t is string => t !== null).map((t) => t.length);
    if (lengths.length === 0 || lengths.reduce((a, b) => a + b, 0) / lengths.length > 1000) continue;
    const numeric = share(texts, (t) => numberLike.test(t) && parseNumber(t) !== null);
    const kind: FoundField["kind"] =
      share(texts, (t) => priceLike.test(t)) >= 0.8
        ? "price"
        : share(texts, (t) => dateLike.test(t)) >= 0.8
          ? "date"
          : numeric >= 0.9
            ? "number"
            : tag === "a" || /^h[1-6]$/.test(tag)
              ? "title"
              : "text";
    const type: ColumnType = (kind === "price" && numeric >= 0.9) || kind === "number" ? "number" : "string";
    keep({ read: { ...at(selector), kind: "text" }, kind, hint, named, type, values: texts });
  }
  // A record with nothing inside to tell apart (a plain list item) is its own one field.
  if (fields.length === 0) {
    const values = records.map((r) => tree.text(r) || null);
    keep({ read: { kind: "text" }, kind: "text", hint: null, named: false, type: "string", values });
  }
  return fields;
};
