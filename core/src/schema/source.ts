import * as Schema from "effect/Schema";
import { ExtractionName } from "./column.js";

const isHttpUrl = (s: string): boolean => {
  if (!/^https?:\/\//i.test(s)) return false;
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
};

/** An absolute http(s) URL of at most 2048 characters. */
export const HttpUrl = Schema.String.pipe(
  Schema.maxLength(2048),
  Schema.filter(isHttpUrl, { message: () => "must be an absolute http:// or https:// URL" }),
  Schema.annotations({ jsonSchema: { type: "string", format: "uri", maxLength: 2048 } }),
);

export const Selector = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500));

export const AttributeName = Schema.String.pipe(
  Schema.maxLength(100),
  Schema.pattern(/^[A-Za-z_][\w-]*$/, {
    message: () => "must start with a letter or underscore, then word characters or hyphens (at most 100)",
  }),
);

export const SourceRead = Schema.Struct({
  selector: Schema.optional(Selector),
  kind: Schema.optionalWith(Schema.Literal("text", "attribute"), { default: () => "text" as const }),
  attribute: Schema.optional(AttributeName),
}).annotations({ identifier: "SourceRead" });
export type SourceRead = typeof SourceRead.Type;

export const SourceField = Schema.Struct({
  name: ExtractionName,
  read: SourceRead,
  required: Schema.optionalWith(Schema.Boolean, { default: () => false }),
}).annotations({ identifier: "SourceField" });
export type SourceField = typeof SourceField.Type;

export const SourceIdentity = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("source-key"), field: ExtractionName }),
  Schema.Struct({
    kind: Schema.Literal("composite"),
    fields: Schema.Array(ExtractionName).pipe(Schema.minItems(1), Schema.maxItems(50)),
  }),
).annotations({ identifier: "SourceIdentity" });
export type SourceIdentity = typeof SourceIdentity.Type;

export const SourcePagination = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("none") }),
  Schema.Struct({ kind: Schema.Literal("next-link"), selector: Selector }),
  Schema.Struct({
    kind: Schema.Literal("url-pattern"),
    pattern: Schema.String.pipe(
      Schema.minLength(1),
      Schema.maxLength(2048),
      Schema.pattern(/^https?:\/\//, { message: () => "must start with http:// or https://" }),
    ),
    startPage: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 1_000_000)), { default: () => 1 }),
    endSelector: Selector,
  }),
).annotations({ identifier: "SourcePagination" });
export type SourcePagination = typeof SourcePagination.Type;

export const RenderMode = Schema.Literal("static", "browser");
export type RenderMode = typeof RenderMode.Type;
export const ProxyMode = Schema.Literal("auto", "always", "never");
export type ProxyMode = typeof ProxyMode.Type;

/** The declarative recipe. Defaults are applied on decode, so a pinned recipe is always complete. */
export const Source = Schema.Struct({
  version: Schema.Number,
  url: HttpUrl,
  render: Schema.optionalWith(RenderMode, { default: () => "static" as const }),
  itemSelector: Selector,
  fields: Schema.Array(SourceField).pipe(Schema.minItems(1), Schema.maxItems(50)),
  identity: SourceIdentity,
  pagination: SourcePagination,
  maxPages: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 50)), { default: () => 10 }),
  maxItems: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1000)), { default: () => 1000 }),
  minimumItems: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 1000)), { default: () => 1 }),
  proxy: Schema.optionalWith(ProxyMode, { default: () => "auto" as const }),
  ignoreRobots: Schema.optionalWith(Schema.Boolean, { default: () => false }),
}).annotations({ identifier: "Source" });
export type Source = typeof Source.Type;
