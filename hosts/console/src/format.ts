import cronstrue from "cronstrue";
import type { Column } from "./api.js";

export type Cell = string | number | boolean | null | undefined;

/** A cell as text; row data is untrusted page content, so it only ever becomes a text node. */
export const cellText = (value: Cell): string => (value === null || value === undefined ? "—" : String(value));

export const when = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }) : "—";

/** "at 06:00 every day" for "0 6 * * *"; null when the text is not a cron expression. */
export const cronReading = (cron: string): string | null => {
  if (cron.trim() === "") return null;
  try {
    const reading = cronstrue.toString(cron, { use24HourTimeFormat: true, verbose: false });
    // cronstrue says only "At 06:00" for a daily time; say the "every day" a person would.
    const [, hour, day, month, weekday] = cron.trim().split(/\s+/);
    const daily = day === "*" && month === "*" && weekday === "*" && hour !== undefined && !hour.includes("*");
    return `${reading.charAt(0).toLowerCase()}${reading.slice(1)}${daily ? " every day" : ""}`;
  } catch {
    return null;
  }
};

/** Only http(s) addresses become links: a scraped `javascript:` URL must stay text. */
export const safeHref = (url: string | null | undefined): string | undefined =>
  url && /^https?:\/\//i.test(url) ? url : undefined;

/** The text a person typed, as the value the column's type stores. */
export const parseCell = (column: Column, text: string): string | number | boolean | null => {
  if (text.trim() === "") return null;
  if (column.type === "number") {
    const number = Number(text);
    if (!Number.isFinite(number)) throw new Error(`${column.label} needs a number.`);
    return number;
  }
  if (column.type === "boolean") return text.trim().toLowerCase() === "true";
  return text;
};

export const labelOf = (columns: ReadonlyArray<Column>, fieldId: string): string =>
  columns.find((column) => column.id === fieldId)?.label ?? fieldId;

/** The text with each column's field id replaced by its label: what a person reads names columns, never ids. */
export const namingColumns = (text: string, columns: ReadonlyArray<Column>): string =>
  columns.reduce((named, column) => named.replaceAll(column.id, column.label), text);
