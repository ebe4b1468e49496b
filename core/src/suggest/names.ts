import type { FoundField } from "./fields.js";

/** Extraction names (schema/column.ts): a letter, then letters, digits or underscores, at most 80. */
export const extractionName = (text: string): string | null => {
  const words = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/([a-z])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  const name = words
    .join("_")
    .replace(/^[0-9_]+/, "")
    .slice(0, 40)
    .replace(/_+$/, "");
  return /^[a-z][a-z0-9_]*$/.test(name) ? name : null;
};

/** What the markup's own words say a field is, when they say one of the usual things. */
const usual: ReadonlyArray<[RegExp, string]> = [
  [/price|cost|amount/, "price"],
  [/rating|stars?/, "rating"],
  [/date|time|posted|published|updated/, "date"],
  [/author|user|by|poster/, "author"],
  [/title|name|headline|heading/, "title"],
  [/image|img|thumb|photo|picture/, "image"],
  [/comment|repl(y|ies)/, "comments"],
  [/score|points|votes?/, "points"],
];

const byKind: Record<FoundField["kind"], string> = {
  link: "url",
  image: "image",
  title: "title",
  price: "price",
  date: "date",
  number: "number",
  coded: "rating",
  text: "text",
};

/** A distinct, valid name for each field: the markup's (itemprop, header, class), else its kind's. */
export const fieldNames = (fields: ReadonlyArray<FoundField>): string[] => {
  const taken = new Map<string, number>();
  return fields.map((field) => {
    const fromHint = field.hint === null ? null : extractionName(field.hint);
    // A class is read for the usual word in it ("price_color" is a price); a given name is kept.
    const common =
      fromHint === null || field.named ? undefined : usual.find(([pattern]) => pattern.test(fromHint))?.[1];
    let base = byKind[field.kind];
    // The markup's word names text and class-coded values; an attribute is named by what it holds.
    if (fromHint !== null && (field.read.kind === "text" || field.kind === "coded")) base = common ?? fromHint;
    const count = (taken.get(base) ?? 0) + 1;
    taken.set(base, count);
    return count === 1 ? base : `${base}_${count}`;
  });
};

const unique = (values: ReadonlyArray<string | null>) =>
  values.every((v) => v !== null && v !== "") && new Set(values).size === values.length;

/** Which fields make a good key, best first: links, then titles, then the rest. */
const keyPreference: Record<FoundField["kind"], number> = {
  link: 0,
  title: 1,
  text: 2,
  image: 3,
  date: 4,
  number: 5,
  price: 6,
  coded: 7,
};

/**
 * The identity: a field unique across the records (a link first), else the smallest composite that
 * is, else the most distinct single field (the preview's identity check then says what repeats).
 */
export const chooseIdentity = (fields: ReadonlyArray<FoundField>): number[] => {
  const order = fields.map((_, i) => i).sort((a, b) => keyPreference[fields[a]!.kind] - keyPreference[fields[b]!.kind]);
  const single = order.find((i) => unique(fields[i]!.values));
  if (single !== undefined) return [single];
  const joined = (indexes: number[]) =>
    fields[0]!.values.map((_, r) => {
      const parts = indexes.map((i) => fields[i]!.values[r] ?? null);
      return parts.some((p) => p === null || p === "") ? null : JSON.stringify(parts);
    });
  for (let a = 0; a < order.length; a++) {
    for (let b = a + 1; b < order.length; b++) {
      const pair = [order[a]!, order[b]!].sort((x, y) => x - y);
      if (unique(joined(pair))) return pair;
    }
  }
  const distinct = (i: number) => new Set(fields[i]!.values.filter((v) => v !== null)).size;
  return [order.reduce((best, i) => (distinct(i) > distinct(best) ? i : best), order[0] ?? 0)];
};
