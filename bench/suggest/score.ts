// How a suggestion's records and fields compare with a page's ground truth.
import { type DatasetColumn, extractPage, type FieldId, normalizeWhitespace, type Source } from "@gleaner/core";
import { parseWithHtmlparser2 } from "@gleaner/htmlparser2";
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import { Source as SourceSchema } from "@gleaner/core";
import type { Truth } from "./corpus.js";

export interface Scored {
  readonly precision: number;
  readonly recall: number;
  /** The truth's fields (key included) some suggested field reads on at least 80% of matched records. */
  readonly fieldsFound: number;
  readonly fieldsTotal: number;
}

const norm = (text: string) => normalizeWhitespace(text);

/** True when both read the same: text equal, or a link equal once resolved against the page. */
const same = (truth: string, value: string, pageUrl: string): boolean => {
  if (norm(truth) === norm(value)) return true;
  try {
    return new URL(truth.trim(), pageUrl).href === value;
  } catch {
    return false;
  }
};

/**
 * Records match one to one, in document order: a suggested record is a truth record when its text
 * holds that record's key. Precision is over the suggested records, recall over the truth's.
 */
export const scoreSuggestion = (html: string, pageUrl: string, body: { source: unknown }, truth: Truth): Scored => {
  const source = Schema.decodeUnknownSync(SourceSchema)(body.source) as Source;
  const document = Effect.runSync(parseWithHtmlparser2(html, pageUrl));
  const items = document.root.select(source.itemSelector);
  const columns: DatasetColumn[] = source.fields.map((f) => ({
    id: f.name as FieldId,
    label: f.name,
    name: f.name,
    type: "string",
    ownership: "collected",
    key: false,
  }));
  const { records } = extractPage(document, pageUrl, source, columns, 100_000);
  const keys = truth.records.map((r) => norm(r[truth.key] ?? ""));
  const pairs: Array<[number, number]> = [];
  let next = 0;
  items.forEach((item, i) => {
    const text = item.text();
    // A key that is an address (titles repeat on some pages) is one of the record's links.
    const links = [item, ...item.select("a")].flatMap((a) => {
      const href = a.attribute("href");
      return href === null ? [] : [href, document.resolveUrl(href) ?? href];
    });
    for (let t = next; t < keys.length && t < next + 5; t++) {
      if (keys[t] !== "" && (text.includes(keys[t]!) || links.includes(keys[t]!))) {
        pairs.push([i, t]);
        next = t + 1;
        return;
      }
    }
  });
  document.dispose();
  const fieldNames = [...new Set(truth.records.flatMap((r) => Object.keys(r)))];
  const found = fieldNames.filter((name) => {
    const withField = pairs.filter(([, t]) => truth.records[t]![name] !== undefined);
    if (withField.length === 0) return false;
    return source.fields.some((field) => {
      const agree = withField.filter(([i, t]) => {
        const raw = records[i]?.cells.get(field.name)?.raw;
        return raw !== null && raw !== undefined && same(truth.records[t]![name]!, raw, pageUrl);
      }).length;
      return agree >= 0.8 * withField.length;
    });
  });
  return {
    precision: items.length === 0 ? 0 : pairs.length / items.length,
    recall: keys.length === 0 ? 0 : pairs.length / keys.length,
    fieldsFound: found.length,
    fieldsTotal: fieldNames.length,
  };
};
