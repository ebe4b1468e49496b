import { validDataset } from "@gleaner/conformance";
import { ChangeQuery, CreateApiKeyRequest, CreateDatasetRequest, CreateRunBody, RowListQuery } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import { pino } from "pino";
import { type RunningHost, routes } from "@gleaner/koa";
import { route } from "../src/api/route.js";
import { createApp } from "../src/http/app.js";
import { startQuietHost } from "./support/quiet-host.js";

/** What each probe route's handler was handed, by operation. */
const seen = new Map<string, { readonly query: unknown; readonly body: unknown }>();

/** A route of the host's own shape whose handler only keeps what the router decoded for it. */
const probe = (operationId: string, method: "get" | "post", path: string) => ({
  method,
  path,
  operationId,
  tag: "Probe",
  summary: "Probe",
  description: "Records its decoded input.",
  auth: true,
  success: { status: 200, description: "Empty.", schema: null },
  handle: ({ query, body }: { readonly query: unknown; readonly body: unknown }) =>
    Effect.sync(() => seen.set(operationId, { query, body })).pipe(Effect.as({})),
});

const probeRoutes = [
  route({ ...probe("probeRows", "get", "/probe/rows"), query: RowListQuery }),
  route({ ...probe("probeChanges", "get", "/probe/changes"), query: ChangeQuery }),
  route({
    ...probe("probeDatasets", "post", "/probe/datasets"),
    body: { schema: CreateDatasetRequest, required: true },
  }),
  route({ ...probe("probeKeys", "post", "/probe/keys"), body: { schema: CreateApiKeyRequest, required: false } }),
  route({ ...probe("probeRuns", "post", "/probe/runs"), body: CreateRunBody }),
];

const unknownId = "00000000-0000-4000-8000-000000000000";

/**
 * The router decodes query and body with the route's schemas before the handler runs (issue 36), and
 * a request they refuse is answered exactly as when each use case decoded it: same status and body,
 * and still before any lookup that could answer 404.
 */
describe("The route table's query and body decoding", function () {
  this.timeout(30_000);
  let host: RunningHost;
  let server: ReturnType<ReturnType<typeof createApp>["listen"]>;
  let base: string;
  let key: string;
  const send = async (method: string, path: string, body?: unknown) => {
    const answer = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    return { status: answer.status, body: text === "" ? null : JSON.parse(text) };
  };

  before(async () => {
    host = await startQuietHost();
    key = await host.createKey("route-decoding", 10);
    const app = createApp({
      runtime: host.runtime,
      logger: pino({ level: "silent" }),
      bodyLimitBytes: 64 * 1024,
      routes: [...routes, ...probeRoutes],
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as { port: number };
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    server?.close();
    await host?.close();
  });

  it("hands a handler the decoded query: defaults applied, repeated parameters as arrays, numbers from text", async () => {
    expect((await send("GET", "/probe/rows?status=new&status=gone")).status).to.equal(200);
    expect(seen.get("probeRows")).to.deep.equal({ query: { status: ["new", "gone"], limit: 100 }, body: undefined });
    expect((await send("GET", "/probe/changes?after=3&limit=7")).status).to.equal(200);
    expect(seen.get("probeChanges")).to.deep.equal({ query: { after: 3, limit: 7 }, body: undefined });
  });

  it("hands a handler the decoded body, with the schema's defaults", async () => {
    expect((await send("POST", "/probe/datasets", validDataset("Decoded"))).status).to.equal(200);
    // Each column as sent, with the defaults the schema adds (`key` false, `ownership` collected).
    expect(seen.get("probeDatasets")?.body).to.have.deep.property("columns", [
      { name: "upc", type: "string", key: true, label: "UPC", ownership: "collected" },
      { name: "title", type: "string", key: false, ownership: "collected" },
      { name: "price", type: "number", key: false, description: "Price in GBP", ownership: "collected" },
      { name: "in_stock", type: "boolean", key: false, ownership: "collected" },
      { name: "notes", type: "string", key: false, ownership: "user" },
    ]);
  });

  it("hands an optional body left out as the parser's empty object, or as none where an empty body means none", async () => {
    expect((await send("POST", "/probe/keys")).status).to.equal(200);
    expect(seen.get("probeKeys")).to.deep.equal({ query: undefined, body: {} });
    for (const sent of [undefined, {}, []]) {
      seen.delete("probeRuns");
      expect((await send("POST", "/probe/runs", sent)).status).to.equal(200);
      expect(seen.get("probeRuns"), JSON.stringify(sent)).to.deep.equal({ query: undefined, body: undefined });
    }
    expect((await send("POST", "/probe/runs", { kind: "research" })).status).to.equal(200);
    expect(seen.get("probeRuns")).to.deep.equal({ query: undefined, body: { kind: "research" } });
  });

  it("answers an invalid query 400 bad_request naming the parameter, before looking the dataset up", async () => {
    const expected = {
      status: 400,
      body: {
        error: {
          code: "bad_request",
          message: 'Query parameter "limit" Expected a number between 1 and 100, actual 0.',
          details: [
            { path: "limit", message: "Expected a number between 1 and 100, actual 0" },
            { path: "limit", message: 'Expected undefined, actual "0"' },
          ],
        },
      },
    };
    expect(await send("GET", `/v1/datasets/${unknownId}/runs?limit=0`)).to.deep.equal(expected);
    expect(await send("GET", "/v1/datasets?limit=0")).to.deep.equal(expected);
    expect((await send("GET", `/v1/datasets/${unknownId}/runs?limit=5`)).status).to.equal(404);
  });

  it("answers an invalid body 422 validation_error naming the field, before looking the dataset up", async () => {
    const edit = `/v1/datasets/${unknownId}/rows/${unknownId}`;
    expect(await send("PATCH", edit, { requestId: "r1" })).to.deep.equal({
      status: 422,
      body: {
        error: {
          code: "validation_error",
          message: "The request body is invalid: /expectedRevisionId is missing.",
          details: [{ path: "/expectedRevisionId", message: "is missing" }],
        },
      },
    });
    expect((await send("PATCH", edit, { requestId: "r1", expectedRevisionId: unknownId })).status).to.equal(404);
    // A run's empty body is none, so an unknown dataset is what the request gets told, as ever.
    expect((await send("POST", `/v1/datasets/${unknownId}/runs`, [])).status).to.equal(404);
    expect(await send("POST", "/v1/datasets", { ...validDataset(), extra: 1 })).to.deep.equal({
      status: 422,
      body: {
        error: {
          code: "validation_error",
          message: "The request body is invalid: /extra is not a known field.",
          details: [{ path: "/extra", message: "is not a known field" }],
        },
      },
    });
  });
});
