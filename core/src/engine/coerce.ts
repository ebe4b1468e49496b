import { utf8Size } from "../digest.js";
import { boundedText } from "../reading/excerpt.js";
import type { MissingReason, Scalar } from "../schema/row.js";

/** A cell after coercion: a value, or null with the reason it is missing. */
export interface Cell {
  readonly value: Scalar;
  readonly missingReason: MissingReason | null;
  /** The text the read produced, before coercion (for diagnostics). */
  readonly raw: string | null;
}

export const normaliseText = (text: string): string => text.replace(/\s+/g, " ").trim();

/**
 * Numbers as pages show them: currency symbols and letters around the digits are dropped, a sign
 * or accounting parentheses make it negative, and separators are read the way the digits imply:
 * with both "," and "." the last one is the decimal point; a lone "," followed by exactly three
 * digits (in groups) is a thousands separator, otherwise a decimal comma.
 */
export const parseNumber = (text: string): number | null => {
  const trimmed = normaliseText(text);
  const negative = /^\(.*\)$/.test(trimmed) || /^[^\d]*[-−]/.test(trimmed);
  let digits = trimmed.replace(/[^\d.,]/g, "");
  if (!/\d/.test(digits)) return null;
  const lastComma = digits.lastIndexOf(",");
  const lastDot = digits.lastIndexOf(".");
  if (lastComma >= 0 && lastDot >= 0) {
    digits = lastComma > lastDot ? digits.replace(/\./g, "").replace(",", ".") : digits.replace(/,/g, "");
  } else if (lastComma >= 0) {
    digits = /^\d{1,3}(,\d{3})+$/.test(digits) ? digits.replace(/,/g, "") : digits.replace(",", ".");
  } else if ((digits.match(/\./g) ?? []).length > 1) {
    digits = digits.replace(/\./g, "");
  }
  if (!/^\d*\.?\d+$|^\d+\.?$/.test(digits)) return null;
  const value = Number(digits);
  if (!Number.isFinite(value)) return null;
  // A negative zero is zero: JSON has no -0, so a store would answer 0 for it and another -0.
  return negative && value !== 0 ? -value : value;
};

const booleans: Record<string, boolean> = { true: true, false: false, yes: true, no: false, "1": true, "0": false };

/**
 * The largest cell a run keeps, in UTF-8 bytes (decision 0041): a longer value (a 9 MB attribute) is
 * missing with `extraction_failed`, its raw text cut to a note of its size for diagnostics, never
 * stored cut as if it were the value.
 */
export const maxCellBytes = 32 * 1024;
const rawNoteBytes = 512;

/** Coerces what a read produced into the column's type. */
export const coerce = (raw: string | null, type: "string" | "number" | "boolean" | "date" | "url"): Cell => {
  if (raw === null) return { value: null, missingReason: "not_found", raw };
  if (raw.length > maxCellBytes / 3 && utf8Size(raw) > maxCellBytes) {
    return { value: null, missingReason: "extraction_failed", raw: boundedText(raw, rawNoteBytes) };
  }
  const text = normaliseText(raw);
  if (text === "") return { value: null, missingReason: "not_found", raw };
  switch (type) {
    case "number": {
      const value = parseNumber(text);
      return value === null
        ? { value: null, missingReason: "extraction_failed", raw }
        : { value, missingReason: null, raw };
    }
    case "boolean": {
      const value = booleans[text.toLowerCase()];
      return value === undefined
        ? { value: null, missingReason: "extraction_failed", raw }
        : { value, missingReason: null, raw };
    }
    default:
      return { value: text, missingReason: null, raw };
  }
};
