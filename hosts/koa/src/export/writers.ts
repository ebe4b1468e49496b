import { Readable, pipeline } from "node:stream";
import { type ExportColumn, type ExportRow, exportHeader, exportRecord, type RowExport } from "@gleaner/core";
import { stringify } from "csv-stringify";
import * as Stream from "effect/Stream";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";

/** Rows per Parquet row group: the most rows a Parquet export holds at once. */
const parquetRowGroup = 10_000;

const rowsOf = (rowExport: RowExport): AsyncIterable<ExportRow> => Stream.toAsyncIterable(rowExport.rows);

/**
 * CSV with a header, through csv-stringify: fields with commas, quotes or line breaks are quoted,
 * and text starting with `=`, `+`, `-`, `@`, tab or carriage return is prefixed with `'` so a
 * spreadsheet shows it instead of running it (negative numbers are numbers and stay as they are).
 */
const csv = (rowExport: RowExport): Readable => {
  const { columns } = rowExport;
  const records = async function* () {
    for await (const row of rowsOf(rowExport)) yield exportRecord(columns, row);
  };
  const writer = stringify({
    header: true,
    columns: [...exportHeader(columns)],
    escape_formulas: true,
    cast: { boolean: (value) => (value ? "true" : "false") },
  });
  // pipeline destroys the writer when reading fails, so the client sees a cut answer, not a short file.
  return pipeline(Readable.from(records()), writer, () => {});
};

/** One JSON object a line, keys by column name, values keeping their JSON type. */
const jsonl = (rowExport: RowExport): Readable =>
  Readable.from(
    (async function* () {
      for await (const row of rowsOf(rowExport)) yield `${JSON.stringify(exportRecord(rowExport.columns, row))}\n`;
    })(),
  );

type ParquetValue = string | number | boolean | null;

const parquetTypes = (columns: ReadonlyArray<ExportColumn>) => [
  ...exportHeader([]).map((name) => ({ name, kind: "string" as const })),
  ...columns.map((c) => ({
    name: c.name,
    kind: c.type === "number" ? ("number" as const) : c.type === "boolean" ? ("boolean" as const) : ("string" as const),
  })),
];

/** A value in its column's Parquet type; a value of another type (never written by Gleaner) is null. */
const parquetValue = (kind: "string" | "number" | "boolean", value: unknown): ParquetValue =>
  value === null || value === undefined
    ? null
    : kind === "number"
      ? typeof value === "number"
        ? value
        : null
      : kind === "boolean"
        ? typeof value === "boolean"
          ? value
          : null
        : String(value);

/** A hyparquet writer that hands each flushed block to `emit` instead of growing one buffer. */
class ChunkWriter extends ByteWriter {
  constructor(private readonly emit: (chunk: Buffer) => void) {
    super(1 << 16);
  }
  flush(): void {
    if (this.index === 0) return;
    this.emit(Buffer.from(new Uint8Array(this.buffer, 0, this.index)));
    this.index = 0;
  }
  override finish(): void {
    this.flush();
  }
}

/**
 * Parquet through hyparquet-writer: numbers as DOUBLE, booleans as BOOLEAN, the rest as UTF-8
 * strings, all nullable. Rows are written in row groups of {@link parquetRowGroup}, each flushed
 * to the answer before the next is read.
 */
const parquet = (rowExport: RowExport): Readable => {
  const types = parquetTypes(rowExport.columns);
  return Readable.from(
    (async function* () {
      const chunks: Buffer[] = [];
      const writer = new ParquetWriter({
        writer: new ChunkWriter((chunk) => chunks.push(chunk)),
        schema: [
          { name: "root", num_children: types.length },
          ...types.map(({ name, kind }) =>
            kind === "number"
              ? { name, type: "DOUBLE" as const, repetition_type: "OPTIONAL" as const }
              : kind === "boolean"
                ? { name, type: "BOOLEAN" as const, repetition_type: "OPTIONAL" as const }
                : {
                    name,
                    type: "BYTE_ARRAY" as const,
                    converted_type: "UTF8" as const,
                    repetition_type: "OPTIONAL" as const,
                  },
          ),
        ],
        createdBy: "Gleaner",
      });
      let group: Record<string, ParquetValue>[] = [];
      const writeGroup = async () => {
        if (group.length === 0) return;
        const rows = group;
        group = [];
        await writer.write({
          columnData: types.map(({ name, kind }) => ({ name, data: rows.map((r) => parquetValue(kind, r[name])) })),
          rowGroupSize: rows.length,
        });
      };
      for await (const row of rowsOf(rowExport)) {
        group.push(exportRecord(rowExport.columns, row));
        if (group.length >= parquetRowGroup) {
          await writeGroup();
          yield* chunks.splice(0);
        }
      }
      await writeGroup();
      await writer.finish();
      yield* chunks.splice(0);
    })(),
  );
};

/** The export written in its format, as a stream the HTTP answer (or a file) reads at its pace. */
export const writeExport = (rowExport: RowExport): Readable =>
  rowExport.format === "csv" ? csv(rowExport) : rowExport.format === "jsonl" ? jsonl(rowExport) : parquet(rowExport);
