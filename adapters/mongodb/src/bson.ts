import { isCanonicalUuid } from "@gleaner/core";
import { type Binary, UUID } from "mongodb";

// The port speaks ISO strings and UUID strings; documents hold BSON Date and BSON UUID (Binary
// subtype 4). These are the only conversions between the two, so they are tested once, here.

/**
 * Ids are compared as strings in the memory store, so only the canonical lowercase form names a
 * stored document: a lookup by anything else finds nothing instead of matching a differently
 * spelled id (or failing to convert).
 */
export const isUuid = isCanonicalUuid;

/** A port id as BSON UUID. A non-canonical id is a bug in the caller: it would not read back equal. */
export const toUuid = (id: string): UUID => {
  if (!isUuid(id)) throw new TypeError(`Not a canonical lowercase UUID: ${JSON.stringify(id)}`);
  return new UUID(id);
};

export const toUuidOrNull = (id: string | null): UUID | null => (id === null ? null : toUuid(id));

/**
 * The driver deserialises subtype 4 as UUID; a plain Binary (another driver wrote it, or
 * `promoteValues` was off) is accepted too. A plain string: the documents' decoders check the
 * brand (core's storedDecoder), so no id is asserted here.
 */
export const fromUuid = (value: Binary): string => {
  const uuid = value instanceof UUID ? value : value.toUUID();
  return uuid.toHexString(true);
};

export const fromUuidOrNull = (value: Binary | null | undefined): string | null =>
  value === null || value === undefined ? null : fromUuid(value);

/**
 * An ISO date-time as BSON Date (millisecond precision, like the port's timestamps). An
 * unparseable string would be stored as an Invalid Date; refuse it instead.
 */
export const toDate = (iso: string): Date => {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new TypeError(`Not an ISO date-time: ${JSON.stringify(iso)}`);
  return date;
};

export const toDateOrNull = (iso: string | null): Date | null => (iso === null ? null : toDate(iso));

export const fromDate = (date: Date): string => date.toISOString();

export const fromDateOrNull = (date: Date | null | undefined): string | null =>
  date === null || date === undefined ? null : date.toISOString();
