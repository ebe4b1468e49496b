import { expect } from "chai";
import { cursorSecretFor } from "../src/cursor-secret.js";

const hex = (secret: Uint8Array | null) => (secret === null ? null : Buffer.from(secret).toString("hex"));

describe("cursor secret of a deployment", () => {
  const postgres = (url: string, extra: Record<string, string> = {}) =>
    hex(cursorSecretFor({ storage: "postgres", variables: { GLEANER_POSTGRES_URL: url, ...extra } }));

  it("is the same in every process sharing a database, without configuration", () => {
    expect(postgres("postgres://db/a")).to.be.a("string");
    expect(postgres("postgres://db/a")).to.equal(postgres("postgres://db/a", { GLEANER_PORT: "9000" }));
  });
  it("differs between databases", () => {
    expect(postgres("postgres://db/a")).to.not.equal(postgres("postgres://db/b"));
  });
  it("comes from GLEANER_CURSOR_SECRET when it is set", () => {
    const set = { GLEANER_CURSOR_SECRET: "shared" };
    expect(postgres("postgres://db/a", set)).to.equal(postgres("postgres://db/b", set));
    expect(postgres("postgres://db/a", set)).to.not.equal(postgres("postgres://db/a"));
  });
  it("is left to core's per-process key on the memory store", () => {
    expect(cursorSecretFor({ storage: "memory", variables: {} })).to.equal(null);
  });
});
