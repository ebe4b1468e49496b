/**
 * Dates as pages write them ("12 March 1897", "March 12, 1897", "3 mai 1901", "01.04.1903",
 * "1897-03-12"): their numbers are one date's parts, so a day of the month never competes with the
 * year beside it as the number a quote says about a column (quantities.ts).
 */

/** Languages whose month names a date may be written with, as Intl names them (long and short). */
const languages = "en de fr es it nl pt sv da nb fi pl cs".split(" ");
const monthNames = [
  ...new Set(
    languages.flatMap((lang) =>
      (["long", "short"] as const).flatMap((month) => {
        try {
          const format = new Intl.DateTimeFormat(lang, { month, timeZone: "UTC" });
          return Array.from({ length: 12 }, (_, m) =>
            format
              .format(new Date(Date.UTC(2000, m, 15)))
              .toLowerCase()
              .replace(/\.$/, ""),
          );
        } catch {
          return [];
        }
      }),
    ),
  ),
]
  .filter((name) => /^\p{L}{3,}$/u.test(name))
  .sort((a, b) => b.length - a.length);

const month = `(?:${monthNames.join("|")})\\.?`;
const day = "(\\d{1,2})(?:st|nd|rd|th|er|\\.)?";
const year = "(\\d{4})";
const datePatterns: ReadonlyArray<RegExp> = [
  // 12 March 1897, 12. März 1897, 3 de mayo de 1901
  new RegExp(`(?<![\\p{L}\\p{N}])${day}\\s+(?:de\\s+)?${month}\\s+(?:de\\s+)?${year}(?!\\d)`, "giu"),
  // March 12, 1897
  new RegExp(`(?<![\\p{L}\\p{N}])${month}\\s+${day},?\\s+${year}(?!\\d)`, "giu"),
  // 01.04.1903, 1/4/1903
  /(?<![\d.,/])(\d{1,2})[./](\d{1,2})[./](\d{4})(?![\d.,/]\d)/g,
  // 1897-03-12
  /(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])/g,
];

/** A written date: where it stands in a text and its numbers, the year first. */
export interface WrittenDate {
  readonly start: number;
  readonly end: number;
  readonly parts: ReadonlyArray<number>;
}

/** Every date a text writes, none overlapping another. */
export const datesIn = (text: string): WrittenDate[] => {
  const dates: WrittenDate[] = [];
  for (const pattern of datePatterns) {
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (dates.some((d) => start < d.end && end > d.start)) continue;
      const numbers = match.slice(1).map(Number);
      const yearFirst = numbers.sort((a, b) => Number(b >= 1000) - Number(a >= 1000));
      dates.push({ start, end, parts: yearFirst });
    }
  }
  return dates;
};
