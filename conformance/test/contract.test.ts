import { buildOpenApi, routes } from "@gleaner/koa";
import { expect } from "chai";
import { makeContract } from "../src/contract.js";

/** The contract check the whole suite relies on must catch each kind of breach it promises to. */
describe("contract check (every conformance answer is validated against the OpenAPI document)", () => {
  const contract = makeContract(buildOpenApi(routes) as Record<string, any>);
  const runId = globalThis.crypto.randomUUID();
  const credits = new Headers({ "x-credits-remaining": "5" });
  const run = {
    id: runId,
    datasetId: globalThis.crypto.randomUUID(),
    status: "queued",
    checks: [],
    rowDeltas: { new: 0, changed: 0, gone: 0 },
    error: null,
    queuedAt: "2026-11-22T10:00:00.000Z",
    startedAt: null,
    completedAt: null,
  };
  const answer = (status: number, body: unknown, headers = credits) => ({
    method: "GET",
    path: `/v1/runs/${runId}`,
    status,
    headers,
    body,
  });

  it("reads one operation per route of the table", () => {
    expect(contract.operationCount).to.equal(routes.length);
  });

  it("accepts an answer that matches its operation's schema", () => {
    expect(() => contract.check(answer(200, { run }))).not.to.throw();
  });

  it("refuses a body with an additional field, a missing field or a wrong type", () => {
    expect(() => contract.check(answer(200, { run: { ...run, extra: 1 } }))).to.throw(/does not match/);
    const { error: _e, ...missing } = run;
    expect(() => contract.check(answer(200, { run: missing }))).to.throw(/does not match/);
    expect(() => contract.check(answer(200, { run: { ...run, status: "done" } }))).to.throw(/does not match/);
  });

  it("refuses a status the operation does not document, and an error code its status does not list", () => {
    expect(() => contract.check(answer(409, { error: { code: "conflict", message: "x" } }))).to.throw(/not documented/);
    expect(() => contract.check(answer(404, { error: { code: "stale_revision", message: "x" } }))).to.throw(
      /does not match/,
    );
    expect(() => contract.check(answer(404, { error: { code: "not_found", message: "x" } }))).not.to.throw();
  });

  it("refuses an authenticated answer without X-Credits-Remaining", () => {
    expect(() => contract.check(answer(200, { run }, new Headers()))).to.throw(/X-Credits-Remaining/);
  });

  it("requires the error body on paths the document does not have", () => {
    const unknown = { method: "GET", path: "/v1/nothing", status: 404, headers: credits };
    expect(() => contract.check({ ...unknown, body: { error: { code: "not_found", message: "x" } } })).not.to.throw();
    expect(() => contract.check({ ...unknown, body: "Not Found" })).to.throw(/error body/);
    expect(() => contract.check({ ...unknown, status: 200, body: {} })).to.throw(/no operation/);
  });
});
