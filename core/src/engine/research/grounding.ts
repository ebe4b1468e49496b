import { type Cell, coerce } from "../coerce.js";
import { type DecimalSign, type Quantity, quantitiesAt, quantitiesIn, quantityOf, sameQuantity } from "./quantities.js";
import type { ColumnType } from "../../schema/column.js";

/**
 * Grounding rules (docs/decisions/0014-research-runs.md): a model's value is kept only when its
 * verbatim quote occurs in the page's cleaned text and the value itself is in that quote.
 */

/** Typographic quote marks as the straight ones a model types ("\u201eStadtmuseum\u201c", \u00abMus\u00e9e\u00bb). */
const quotes: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201a": "'",
  "\u201b": "'",
  "\u2039": "'",
  "\u203a": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u201e": '"',
  "\u201f": '"',
  "\u00ab": '"',
  "\u00bb": '"',
};

/**
 * Unicode compatibility forms folded (NFKC), typographic quotes straightened, hyphens and dashes
 * written as "-", invisible characters (soft hyphens, zero-width spaces) dropped, whitespace runs
 * collapsed: a model copies what a page shows, not how it is encoded.
 */
export const groundingText = (text: string): string =>
  text
    .normalize("NFKC")
    .replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, "")
    .replace(/[\u2018\u2019\u201a\u201b\u2039\u203a\u201c-\u201f\u00ab\u00bb]/g, (c) => quotes[c] ?? c)
    .replace(/[\u2010-\u2015]/g, "-")
    .replace(/[\s\u00a0]+/g, " ")
    .trim();

/** True when the quote (non-empty) occurs in the page text, both normalised. */
export const quoteOnPage = (quote: string | null, normalisedPage: string): boolean => {
  const q = quote === null ? "" : groundingText(quote);
  return q !== "" && normalisedPage.includes(q);
};

/**
 * The value is what the quote says: its text occurs in the quote, or for a number column the number
 * it says is one the quote says, both read as people write them (quantities.ts).
 */
const valueInQuote = (value: string, quote: string, type: ColumnType, sign: DecimalSign): boolean => {
  if (type === "boolean") return true; // yes/no answers are read from the quote, not copied from it.
  const v = groundingText(value).toLowerCase();
  if (type !== "number") return groundingText(quote).toLowerCase().includes(v);
  const n = quantityOf(value, sign);
  return n !== null && quantitiesIn(quote, sign).some((q) => sameQuantity(q, n));
};

/** Words too common to tie a number to a column ("number of employees" is about employees). */
const commonWords = new Set("the and for with number count total amount how many per".split(" "));
/** A word as `columnWords` compares it: its first five letters, so "employs" meets "employees". */
const stem = (word: string) =>
  word
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .slice(0, 5);

/** The words a column is known by (its name and label), as stems. */
export const columnWords = (column: { readonly name: string; readonly label: string }): ReadonlyArray<string> => {
  const words = `${column.name} ${column.label}`
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length >= 3 && !commonWords.has(w.toLowerCase()));
  return [...new Set(words.map(stem))];
};

/**
 * A quote that says several numbers supports only the one nearest the column's words (issue 34):
 * "hosts 5,000 of the company's 86,000 employees" says the headcount is 86,000, not 5,000.
 * Percentages do not compete with a value that is not one, and a quote without the column's words
 * cannot say which number is meant, so any of them stands.
 */
const numberAboutColumn = (value: string, quote: string, about: ReadonlyArray<string>, sign: DecimalSign): boolean => {
  const n = quantityOf(value, sign);
  const percentValue = /%|percent/i.test(value);
  const all = quantitiesAt(quote, sign).filter((q) => q.percent === percentValue);
  if (n === null || new Set(all.map((q) => q.value)).size <= 1) return true;
  const said = valueCells(quote, about, all);
  const words = [...quote.matchAll(/[\p{L}\p{N}][\p{L}\p{N}.,'\u2019-]*/gu)];
  const wordAt = (offset: number) => words.filter((w) => w.index <= offset).length - 1;
  const marks = words.flatMap((w, i) => (about.includes(stem(w[0])) ? [i] : []));
  if (marks.length === 0) return true;
  const distance = (offset: number) => Math.min(...marks.map((m) => Math.abs(m - wordAt(offset))));
  const nearest = Math.min(...said.map((q) => distance(q.at)));
  return said.some((q) => sameQuantity(q.value, n) && distance(q.at) === nearest);
};

/**
 * In a table row ("Visitors (2024) | 310 000", cells joined by " | " in the cleaned text) a number in
 * the cell that names the column labels it; the row says the value in its other cells, when they hold one.
 */
const valueCells = (quote: string, about: ReadonlyArray<string>, said: Quantity[]): Quantity[] => {
  if (!quote.includes(" | ")) return said;
  let start = 0;
  const labels: Array<readonly [number, number]> = [];
  for (const cell of quote.split(" | ")) {
    const words = cell.match(/\p{L}+/gu) ?? [];
    if (words.some((w) => about.includes(stem(w)))) labels.push([start, start + cell.length]);
    start += cell.length + 3;
  }
  const values = said.filter((q) => !labels.some(([s, e]) => q.at >= s && q.at < e));
  return values.length > 0 ? values : said;
};

/** Why a cell the model returned was not kept, besides an ordinary missing value. */
export type Refusal =
  | "quote_not_on_page"
  | "value_not_in_quote"
  | "not_convertible"
  /** A real quote about something else: it neither names the entity nor stands in a block that does. */
  | "quote_not_about_entity"
  /** A real quote that says the number, but of something else: another number stands nearer the column's words. */
  | "quote_not_about_value"
  | null;

export interface GroundedCell {
  readonly cell: Cell;
  readonly refusal: Refusal;
  /** The quote, when the value was kept (it becomes the cell's evidence entry). */
  readonly quote: string | null;
}

/** Grounds one model cell against the page and converts it with the deterministic coercion. */
export const groundCell = (
  answer: { readonly status: "found" | "not_on_page"; readonly value: string | null; readonly quote: string | null },
  type: ColumnType,
  normalisedPage: string,
  /** The column's words (`columnWords`): which of a quote's numbers is the column's. */
  about: ReadonlyArray<string> = [],
  /** The page's decimal sign (`decimalSignOf` its language): how its numbers, and the model's, are read. */
  sign: DecimalSign = null,
): GroundedCell => {
  if (answer.status === "not_on_page" || answer.value === null || answer.value.trim() === "") {
    return { cell: { value: null, missingReason: "not_found", raw: null }, refusal: null, quote: null };
  }
  const failed = (refusal: Refusal): GroundedCell => ({
    cell: { value: null, missingReason: "extraction_failed", raw: answer.value },
    refusal,
    quote: null,
  });
  if (!quoteOnPage(answer.quote, normalisedPage)) return failed("quote_not_on_page");
  const quote = answer.quote as string;
  if (!valueInQuote(answer.value, quote, type, sign)) return failed("value_not_in_quote");
  if (type === "number" && !numberAboutColumn(answer.value, quote, about, sign)) return failed("quote_not_about_value");
  // A number is kept as the quantity it says ("1.6 million" is 1,600,000), not as its digits.
  const quantity = type === "number" ? quantityOf(answer.value, sign) : null;
  const cell =
    quantity === null ? coerce(answer.value, type) : { value: quantity, missingReason: null, raw: answer.value };
  if (cell.missingReason !== null) return failed("not_convertible");
  return { cell, refusal: null, quote };
};

/** An entity name as identity compares it: no case, diacritics, punctuation or extra whitespace. */
export const nameKey = (name: string): string =>
  name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();

/** Legal forms and articles a company's name is written with or without ("Apple Inc.", "Siemens AG"). */
export const legalFormWords: ReadonlySet<string> = new Set(
  "inc incorporated corp corporation co company ltd limited llc plc ag se gmbh mbh sa sas sarl srl spa bv nv ab oy oyj as asa aps kg kgaa lp llp pty pte lda sl".split(
    " ",
  ),
);

/**
 * A name without its legal form and a leading "the", as `nameKey` compares it: "Apple Inc." and
 * "Apple" are one company, "The Siemens AG" and "Siemens" too. Empty when nothing else is left.
 */
export const bareNameKey = (name: string): string => {
  const words = nameKey(name).split(" ");
  if (words[0] === "the") words.shift();
  while (words.length > 1 && legalFormWords.has(words[words.length - 1]!)) words.pop();
  return words.join(" ");
};
