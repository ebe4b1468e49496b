import { parseNumber } from "../coerce.js";
import { datesIn } from "./dates.js";

/**
 * Scale words and their factors, as pages write them after a number ("1.6 million", "€2.3bn", "40k").
 * Single letters that are also units ("5 m" tall, "3 t" of steel) are not scales.
 */
const scales: ReadonlyArray<readonly [RegExp, number]> = [
  [/^(thousand|k)$/i, 1e3],
  [/^(million|millions|mn|mio)$/i, 1e6],
  [/^(billion|billions|bn|mrd|bln)$/i, 1e9],
  [/^(trillion|trillions|tn)$/i, 1e12],
];

/** What groups thousands besides "," and ".": a space (no-break, thin, narrow) or an apostrophe ("12 500", "12'500"). */
const groupSpace = "[ \\u00a0\\u2009\\u202f'\\u2019]";
/**
 * A number as a page writes it, with what follows it: `2.3` and `bn` of "€2.3bn", and a percent sign.
 * Groups of three digits after a space or apostrophe are one number ("12 500"); a minus sign counts
 * only where no word or number runs into it ("1990-2001" is two years, not 1990 and -2001).
 */
const digitQuantity = new RegExp(
  `(?:(?<![\\p{L}\\p{N}])[-\\u2212])?(?:\\d{1,3}(?:${groupSpace}\\d{3})+(?!\\d)(?:[.,]\\d+)?|\\d[\\d.,]*)(?:\\s?([a-z]+))?(\\s?%)?`,
  "giu",
);

const units =
  "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(
    " ",
  );
const tens = "twenty thirty forty fifty sixty seventy eighty ninety".split(" ");
const wordValues = new Map<string, number>([
  ...units.map((w, i) => [w, i] as const),
  ...tens.map((w, i) => [w, (i + 2) * 10] as const),
]);
const wordScales = new Map([
  ["thousand", 1e3],
  ["million", 1e6],
  ["billion", 1e9],
]);
/** An English number in words ("forty-two", "two hundred and five", "twelve thousand"): it starts with a unit or a ten. */
const numberWord = `(?:${[...wordValues.keys()].join("|")})`;
const anyNumberWord = `(?:${numberWord}|hundred|${[...wordScales.keys()].join("|")})`;
const wordQuantity = new RegExp(`\\b${numberWord}(?:(?:[\\s-]+|\\s+and\\s+)${anyNumberWord})*\\b`, "giu");

const scaleOf = (word: string | undefined): number => {
  if (word === undefined) return 1;
  return scales.find(([pattern]) => pattern.test(word))?.[1] ?? 1;
};

const wordsValue = (phrase: string): number => {
  let total = 0;
  let current = 0;
  for (const word of phrase.toLowerCase().split(/[\s-]+/)) {
    const value = wordValues.get(word);
    if (value !== undefined) current += value;
    else if (word === "hundred") current = (current || 1) * 100;
    else if (wordScales.has(word)) {
      total += (current || 1) * (wordScales.get(word) as number);
      current = 0;
    }
  }
  return total + current;
};

/**
 * How a page's language writes a number's decimal sign: "," (de, fr, es, it, nl, pt, ru, pl, tr, …:
 * dots, spaces and the like group thousands), "." (en, …: commas group), or null when the language
 * is unknown or writes neither. Learned from Intl's number format for the language, not a hand list.
 */
export type DecimalSign = "," | "." | null;
const decimalSigns = new Map<string, DecimalSign>();
export const decimalSignOf = (lang: string | null | undefined): DecimalSign => {
  const tag = lang?.trim() ?? "";
  if (tag === "") return null;
  let sign = decimalSigns.get(tag);
  if (sign === undefined) {
    try {
      // An unsupported tag would fall back to the host's own locale: unknown instead.
      const known = Intl.NumberFormat.supportedLocalesOf(tag).length > 0;
      const part = known ? new Intl.NumberFormat(tag).formatToParts(1000.5).find((p) => p.type === "decimal") : null;
      sign = part?.value === "," || part?.value === "." ? part.value : null;
    } catch {
      sign = null; // not a language tag
    }
    if (decimalSigns.size < 1000) decimalSigns.set(tag, sign);
  }
  return sign;
};

/** Digits read by the decimal sign: a decimal comma reads as the coercion reads a decimal point, the signs swapped. */
const readDigits = (digits: string, sign: "," | "."): number | null =>
  parseNumber(sign === "." ? digits : digits.replace(/[.,]/g, (c) => (c === "." ? "," : ".")));

/** A number a text says, where it says it (a character offset), and whether it is a percentage. */
export interface Quantity {
  readonly value: number;
  readonly at: number;
  readonly percent: boolean;
}

/**
 * Every number a text says, read as people write them (issue 34): "5,000" and "5.000" by the page's
 * decimal sign (`decimalSignOf`: "5.000" is 5000 on a German page and 5 on an English one; with no
 * language known both readings count), a scale word after the number multiplies it ("1.6 million",
 * "€2.3bn", "40k"), and English number words ("forty-two", "twelve thousand") are numbers too.
 * Currency signs and words around it are ignored, as the deterministic coercion ignores them.
 */
export const quantitiesAt = (text: string, sign: DecimalSign = null): Quantity[] => {
  const found: Quantity[] = [];
  const taken: Array<readonly [number, number]> = [];
  // A date's numbers stand together at its start: the day beside a year is no nearer a column's words.
  for (const date of datesIn(text)) {
    taken.push([date.start, date.end]);
    for (const value of date.parts) found.push({ value, at: date.start, percent: false });
  }
  for (const match of text.matchAll(digitQuantity)) {
    if (taken.some(([start, end]) => match.index < end && match.index + match[0].length > start)) continue;
    const digits = match[0]
      .replace(/\s?%$/, "")
      .replace(/\s?[a-z]+$/iu, "")
      .replace(new RegExp(groupSpace, "gu"), "");
    const base = readDigits(digits, sign ?? ".");
    if (base === null) continue;
    const factor = scaleOf(match[1]);
    const at = match.index;
    const percent = match[2] !== undefined || /^per ?cent$/i.test(match[1] ?? "");
    taken.push([at, at + match[0].length]);
    found.push({ value: base * factor, at, percent });
    // "5.000" on a page of unknown language: 5 by the coercion's reading, 5000 by a German one's.
    if (sign === null && /^[-\u2212]?\d{1,3}\.\d{3}$/.test(digits))
      found.push({ value: (readDigits(digits, ",") ?? base) * factor, at, percent });
  }
  for (const match of text.matchAll(wordQuantity)) {
    if (taken.some(([start, end]) => match.index < end && match.index + match[0].length > start)) continue;
    const after = text.slice(match.index + match[0].length);
    found.push({ value: wordsValue(match[0]), at: match.index, percent: /^\s?(%|per ?cent\b)/i.test(after) });
  }
  return found.sort((a, b) => a.at - b.at);
};

/** The numbers a text says (`quantitiesAt` without where). */
export const quantitiesIn = (text: string, sign: DecimalSign = null): number[] =>
  quantitiesAt(text, sign).map((q) => q.value);

/**
 * The number a value says ("1.6 million" is 1,600,000), or null when it says none or several. Read by
 * the page's decimal sign ("5.000" on a German page is 5000); with none known, the coercion's reading.
 */
export const quantityOf = (value: string, sign: DecimalSign = null): number | null => {
  const found = quantitiesAt(value, sign);
  return found.length >= 1 && found.every((q) => q.at === found[0]!.at) ? found[0]!.value : null;
};

/** Two quantities are the same number (a scale factor's floating-point error aside). */
export const sameQuantity = (a: number, b: number): boolean =>
  a === b || Math.abs(a - b) <= Math.max(Math.abs(a), Math.abs(b)) * 1e-9;
