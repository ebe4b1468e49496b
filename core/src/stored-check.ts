import * as Option from "effect/Option";
import type { ParseOptions } from "effect/SchemaAST";
import * as AST from "effect/SchemaAST";

/**
 * A fast path for storedDecoder, because Effect's generic decoding of every value a store reads back
 * was a large share of an unchanged re-run (decision 0042; bench/README.md#durable-run). What a store
 * wrote itself nearly always decodes to itself, so `identityCheck` compiles a schema's AST, once, into a plain predicate that
 * answers true only where decoding would succeed AND answer a value equal to the input, key order
 * included: then the input is the decoded value. It asks the schema's own nodes (literals, keywords,
 * every refinement's filter), so no rule is written twice. Anything else (false) goes to Effect's
 * decoder, which answers exactly as before, its StorageFailure included. A schema with a node not
 * covered here (transformations, declarations, defaults, recursion) gets no check at all (null).
 */
type Check = (input: unknown) => boolean;

// Effect's output is a plain object (or array) whatever the input's class: a Date where a record is
// expected decodes to {}. Only plain ones are their own output.
const isPlainRecord = (u: unknown): u is Record<PropertyKey, unknown> => {
  if (typeof u !== "object" || u === null) return false;
  const prototype = Object.getPrototypeOf(u);
  return prototype === Object.prototype || prototype === null;
};

const primitiveTags = new Set(["Literal", "UndefinedKeyword", "StringKeyword", "NumberKeyword", "BooleanKeyword"]);
/** A node whose values are never objects: in a union, it cannot compete with an object member. */
const isPrimitive = (ast: AST.AST): boolean =>
  ast._tag === "Refinement" ? isPrimitive(ast.from) : primitiveTags.has(ast._tag);

const compile = (ast: AST.AST, options: ParseOptions, memo: Map<AST.AST, Check | null>): Check | null => {
  if (memo.has(ast)) return memo.get(ast)!;
  // These change how Effect decodes the node (other options, a fallback value): not covered.
  const check =
    Option.isSome(AST.getParseOptionsAnnotation(ast)) || Option.isSome(AST.getDecodingFallbackAnnotation(ast))
      ? null
      : compileNode(ast, options, memo);
  memo.set(ast, check);
  return check;
};

const compileNode = (ast: AST.AST, options: ParseOptions, memo: Map<AST.AST, Check | null>): Check | null => {
  switch (ast._tag) {
    case "Literal": {
      const literal = ast.literal;
      return (u) => u === literal;
    }
    case "UndefinedKeyword":
      return (u) => u === undefined;
    case "StringKeyword":
      return (u) => typeof u === "string";
    case "NumberKeyword":
      return (u) => typeof u === "number";
    case "BooleanKeyword":
      return (u) => typeof u === "boolean";
    // Effect decodes any value as Unknown to the value itself (a trace's `discovery`).
    case "UnknownKeyword":
      return () => true;
    case "Refinement": {
      // Decoding gives the input back, so the filter sees what Effect's would.
      const from = compile(ast.from, options, memo);
      return from && ((u) => from(u) && Option.isNone(ast.filter(u, options, ast)));
    }
    case "Union": {
      // Effect answers the first member that decodes the input. With at most one member that takes
      // objects, a primitive is answered as itself and an object only by that member.
      if (ast.types.filter((t) => !isPrimitive(t)).length > 1) return null;
      const members = ast.types.map((t) => compile(t, options, memo));
      if (members.some((m) => m === null)) return null;
      const checks = members as Check[];
      return (u) => checks.some((check) => check(u));
    }
    case "TupleType":
      return compileTuple(ast, options, memo);
    case "TypeLiteral":
      return ast.indexSignatures.length === 0
        ? compileStruct(ast.propertySignatures, options, memo)
        : ast.propertySignatures.length === 0 && ast.indexSignatures.length === 1
          ? compileRecord(ast.indexSignatures[0]!, options, memo)
          : null;
    default:
      return null;
  }
};

const compileTuple = (ast: AST.TupleType, options: ParseOptions, memo: Map<AST.AST, Check | null>): Check | null => {
  if (ast.rest.length > 1 || ast.elements.some((e) => e.isOptional)) return null;
  const elements = ast.elements.map((e) => compile(e.type, options, memo));
  const rest = ast.rest[0] === undefined ? undefined : compile(ast.rest[0].type, options, memo);
  if (elements.some((e) => e === null) || rest === null) return null;
  const fixed = elements as Check[];
  return (u) => {
    if (
      !Array.isArray(u) ||
      Object.getPrototypeOf(u) !== Array.prototype ||
      u.length < fixed.length ||
      (rest === undefined && u.length > fixed.length)
    )
      return false;
    for (let i = 0; i < fixed.length; i++) if (!fixed[i]!(u[i])) return false;
    if (rest !== undefined) for (let i = fixed.length; i < u.length; i++) if (!rest(u[i])) return false;
    return true;
  };
};

// Effect's output has the declared properties in the schema's order and drops any other key, so
// the input is its own output only with no other key and its keys in that order. A missing
// required key is left to Effect (it may decode `undefined` into a key the input lacks).
const compileStruct = (
  signatures: ReadonlyArray<AST.PropertySignature>,
  options: ParseOptions,
  memo: Map<AST.AST, Check | null>,
): Check | null => {
  if (signatures.length === 0 || signatures.some((s) => typeof s.name !== "string")) return null;
  const names = signatures.map((s) => s.name as string);
  const optional = signatures.map((s) => s.isOptional);
  const checks = signatures.map((s) => compile(s.type, options, memo));
  if (checks.some((c) => c === null)) return null;
  const values = checks as Check[];
  return (u) => {
    if (!isPlainRecord(u)) return false;
    // The input's keys, in order, must be the schema's with only optional ones left out.
    let at = 0;
    for (const key of Reflect.ownKeys(u)) {
      while (at < names.length && names[at] !== key) if (!optional[at++]) return false;
      if (at === names.length || !values[at++]!(u[key])) return false;
    }
    while (at < names.length) if (!optional[at++]) return false;
    return true;
  };
};

// Effect's output copies each string key the index signature matches, in Object.keys order. A
// symbol key (skipped) or "__proto__" (which assignment would not copy) is left to Effect.
const compileRecord = (
  signature: AST.IndexSignature,
  options: ParseOptions,
  memo: Map<AST.AST, Check | null>,
): Check | null => {
  const value = signature.parameter._tag === "StringKeyword" ? compile(signature.type, options, memo) : null;
  return (
    value &&
    ((u) => {
      if (!isPlainRecord(u)) return false;
      for (const key of Reflect.ownKeys(u)) {
        if (typeof key !== "string" || key === "__proto__" || !value(u[key])) return false;
      }
      return true;
    })
  );
};

/**
 * A predicate that is true only for an input that `ast` decodes (with `options`) to a value equal
 * to the input, key order included; null when the schema has nodes it does not cover.
 */
export const identityCheck = (ast: AST.AST, options: ParseOptions): Check | null => compile(ast, options, new Map());
