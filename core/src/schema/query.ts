import * as Schema from "effect/Schema";

/**
 * A query-string integer: decimal digits only. `Number()` would also take `0x10`, `1e1`, `+5`,
 * ` 5` and `1.0`; a client sending those has a bug we should name, not guess around.
 */
export const QueryInt = (min: number, max: number = Number.MAX_SAFE_INTEGER) =>
  Schema.compose(
    Schema.String.pipe(Schema.pattern(/^[0-9]{1,16}$/, { message: () => "must be a decimal integer (digits only)" })),
    Schema.NumberFromString,
  ).pipe(Schema.int(), Schema.between(min, max));
