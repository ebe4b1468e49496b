// COPY … FROM STDIN in PostgreSQL's text format: one line per row, columns separated by tabs, \N for
// null, and backslash, newline, carriage return and tab escaped with a backslash. The server reads
// each column with its type's input function, as it would a parameter, so a json column receives
// the text of JSON.stringify and checks it once (json_to_recordset parsed it twice: the array, then
// each json field again; decision 0025).

const escapes: Readonly<Record<string, string>> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const special = /[\\\n\r\t]/g;

/** A text value as a COPY column (null as \N). */
export const copyText = (value: string | number | null): string =>
  value === null ? "\\N" : typeof value === "number" ? String(value) : value.replace(special, (c) => escapes[c]!);

/**
 * A JSON value as a json column. JSON.stringify writes no raw newline, carriage return or tab (it
 * escapes them inside strings), so only its backslashes need doubling.
 */
export const copyJson = (value: unknown): string =>
  value === null || value === undefined ? "\\N" : JSON.stringify(value).replaceAll("\\", "\\\\");

/** A text[] column: an array literal with every element quoted, then escaped as a COPY column. */
export const copyTextArray = (values: ReadonlyArray<string>): string =>
  copyText(`{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(",")}}`);

/** One row: its columns, already encoded, as one line. */
export const copyLine = (columns: ReadonlyArray<string>): string => `${columns.join("\t")}\n`;
