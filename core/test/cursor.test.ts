import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import { decodeCursor, encodeCursor } from "../src/rules/cursor.js";

const decode = (kind: string, scope: string, cursor: string) =>
  Effect.runSync(Effect.either(decodeCursor(kind, scope, cursor)));

describe("opaque cursors", () => {
  it("round-trips a position for the same list", () => {
    const cursor = encodeCursor("rows", "dataset-1", ["2026-11-21T10:00:00.000Z", "b7c1…", 3]);
    expect(Either.getOrThrow(decode("rows", "dataset-1", cursor))).to.deep.equal([
      "2026-11-21T10:00:00.000Z",
      "b7c1…",
      3,
    ]);
  });
  it("refuses a cursor of another list or another kind", () => {
    const cursor = encodeCursor("rows", "dataset-1", ["x"]);
    expect(Either.isLeft(decode("rows", "dataset-2", cursor))).to.equal(true);
    expect(Either.isLeft(decode("datasets", "dataset-1", cursor))).to.equal(true);
  });
  it("refuses edited, truncated and invented cursors", () => {
    const cursor = encodeCursor("rows", "s", ["2026-11-21T10:00:00.000Z", "id"]);
    const [body = "", sum = ""] = cursor.split(".");
    for (const bad of [`${body.slice(0, -2)}AA.${sum}`, body, `${body}.${sum}.x`, "", "....", "eyJ9.1"]) {
      const result = decode("rows", "s", bad);
      expect(Either.isLeft(result), bad).to.equal(true);
      if (Either.isLeft(result)) expect(result.left._tag).to.equal("BadRequest");
    }
  });
});

describe("cursor signatures", () => {
  it("refuses a cursor signed under another deployment's secret", () => {
    const ours = new TextEncoder().encode("ours");
    const theirs = new TextEncoder().encode("theirs");
    const cursor = encodeCursor("rows", "s", ["x"], theirs);
    expect(Either.isLeft(Effect.runSync(Effect.either(decodeCursor("rows", "s", cursor, ours))))).to.equal(true);
    expect(Either.isRight(Effect.runSync(Effect.either(decodeCursor("rows", "s", cursor, theirs))))).to.equal(true);
  });
});
