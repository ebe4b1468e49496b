import * as Schema from "effect/Schema";

/** Branded identifiers: a DatasetId can never be passed where a RunId is expected. */
export const OwnerId = Schema.UUID.pipe(Schema.brand("OwnerId"));
export type OwnerId = typeof OwnerId.Type;
export const DatasetId = Schema.UUID.pipe(Schema.brand("DatasetId"));
export type DatasetId = typeof DatasetId.Type;
export const FieldId = Schema.UUID.pipe(Schema.brand("FieldId"));
export type FieldId = typeof FieldId.Type;
export const RunId = Schema.UUID.pipe(Schema.brand("RunId"));
export type RunId = typeof RunId.Type;
export const RowId = Schema.UUID.pipe(Schema.brand("RowId"));
export type RowId = typeof RowId.Type;
export const RevisionId = Schema.UUID.pipe(Schema.brand("RevisionId"));
export type RevisionId = typeof RevisionId.Type;
export const ObservationId = Schema.UUID.pipe(Schema.brand("ObservationId"));
export type ObservationId = typeof ObservationId.Type;
export const SchemaId = Schema.UUID.pipe(Schema.brand("SchemaId"));
export type SchemaId = typeof SchemaId.Type;
export const LedgerEntryId = Schema.UUID.pipe(Schema.brand("LedgerEntryId"));
export type LedgerEntryId = typeof LedgerEntryId.Type;

const canonicalUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Whether a string is an id as Gleaner writes them: a UUID in canonical lower-case form. Stores
 * answer "not found" for anything else without asking the database, as the memory store's string
 * comparison does (another spelling of an id never names a record).
 */
export const isCanonicalUuid = (value: string): boolean => canonicalUuid.test(value);

/** A fresh v4 UUID from the platform's Web Crypto (present in Node, Deno, Bun and browsers). */
export const newId = <A extends string = string>(): A => globalThis.crypto.randomUUID() as string as A;

/** ISO 8601 timestamp as the API shows it (UTC, millisecond precision). */
export const DateTime = Schema.String.pipe(
  Schema.filter((s) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}T/.test(s), {
    message: () => "must be an ISO 8601 date-time, for example 2026-01-31T12:00:00Z",
  }),
  Schema.annotations({ jsonSchema: { type: "string", format: "date-time" } }),
);
