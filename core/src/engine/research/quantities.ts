import { parseNumber } from "../coerce.js";

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

/** A number as a page writes it, with what follows it: `2.3` and `bn` of "€2.3bn". */
const quantity = /[-\u2212]?\d[\d.,]*(?:\s?([a-z]+))?/giu;

const scaleOf = (word: string | undefined): number => {
  if (word === undefined) return 1;
  return scales.find(([pattern]) => pattern.test(word))?.[1] ?? 1;
};

/**
 * Every number a text says, read as people write them (issue 34): "5,000" and "5.000" (a single dot
 * before three digits is a thousands separator in much of Europe, so both readings count), and a
 * scale word after the number multiplies it ("1.6 million", "€2.3bn", "40k"). Currency signs and
 * words around it are ignored, as the deterministic coercion ignores them.
 */
export const quantitiesIn = (text: string): number[] => {
  const found: number[] = [];
  for (const match of text.matchAll(quantity)) {
    const digits = match[0].replace(/\s?[a-z]+$/iu, "");
    const base = parseNumber(digits);
    if (base === null) continue;
    const factor = scaleOf(match[1]);
    found.push(base * factor);
    // "5.000": 5 by the coercion's reading, 5000 by a German, French or Spanish page's.
    if (/^[-\u2212]?\d{1,3}\.\d{3}$/.test(digits))
      found.push(Number(digits.replace(".", "").replace("\u2212", "-")) * factor);
  }
  return found;
};

/** The number a value says ("1.6 million" is 1,600,000), or null when it says none or several. */
export const quantityOf = (value: string): number | null => {
  const found = quantitiesIn(value);
  return found.length >= 1 && found.length <= 2 ? found[0]! : null;
};

/** Two quantities are the same number (a scale factor's floating-point error aside). */
export const sameQuantity = (a: number, b: number): boolean =>
  a === b || Math.abs(a - b) <= Math.max(Math.abs(a), Math.abs(b)) * 1e-9;
