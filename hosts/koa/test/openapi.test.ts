import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";
import { buildOpenApi, type RunningHost, routes, startHost } from "@gleaner/koa";
import { buildRouter } from "../src/api/koa.js";

/** SPEC.md's sixteen endpoints: the document must describe each of them, with these statuses at least. */
const specEndpoints: ReadonlyArray<[string, string, ReadonlyArray<number>]> = [
  ["post", "/v1/datasets", [201, 401, 409, 422, 500]],
  ["get", "/v1/datasets", [200, 400, 401, 500]],
  ["get", "/v1/datasets/{datasetId}", [200, 401, 404, 500]],
  ["patch", "/v1/datasets/{datasetId}", [200, 401, 404, 409, 422, 500]],
  ["get", "/v1/datasets/{datasetId}/rows", [200, 400, 401, 404, 500]],
  ["get", "/v1/datasets/{datasetId}/rows/{rowId}", [200, 401, 404]],
  ["patch", "/v1/datasets/{datasetId}/rows/{rowId}", [200, 400, 401, 404, 409, 422]],
  ["get", "/v1/datasets/{datasetId}/changes", [200, 400, 401, 404, 422]],
  ["get", "/v1/datasets/{datasetId}/runs", [200, 400, 401, 404]],
  ["post", "/v1/datasets/{datasetId}/runs", [202, 401, 402, 404, 409, 503]],
  ["get", "/v1/runs/{runId}", [200, 401, 404, 500]],
  ["get", "/v1/runs/{runId}/artifacts", [200, 401, 404]],
  ["get", "/v1/runs/{runId}/artifacts/{artifactId}", [200, 401, 404]],
  ["get", "/v1/runs/{runId}/diagnostics", [200, 400, 401, 404]],
  ["get", "/v1/runs/{runId}/trace", [200, 401, 404, 500]],
  ["get", "/v1/usage", [200, 401, 500]],
];

const operationsOf = (document: any): string[] =>
  Object.entries<any>(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );

describe("GET /v1/openapi.json", () => {
  let host: RunningHost;
  let document: any;
  before(async () => {
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { port: 0, host: "127.0.0.1" },
      logger: pino({ level: "silent" }),
    });
    document = await (await fetch(`${host.url}/v1/openapi.json`)).json();
  });
  after(() => host.close());

  it("is served without a key and is a valid OpenAPI 3.1 document", async () => {
    expect(document.openapi).to.equal("3.1.0");
    const result = await new Validator().validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it("lists exactly the routes the router answers, both ways", () => {
    const router = buildRouter(routes, { runtime: host.runtime, bodyLimitBytes: 1024 });
    const routed = router.stack.flatMap((layer) =>
      layer.methods.filter((m) => m !== "HEAD").map((m) => `${m} ${layer.path.replace(/:([A-Za-z]+)/g, "{$1}")}`),
    );
    expect([...routed].sort()).to.deep.equal(operationsOf(document).sort());
  });

  it("answers every documented operation (no documented path is a 404 or 405 of the router)", async () => {
    const id = globalThis.crypto.randomUUID();
    for (const operation of operationsOf(document)) {
      const [method, path] = operation.split(" ") as [string, string];
      const response = await fetch(`${host.url}${path.replace(/\{[^}]+\}/g, id)}`, { method });
      const body = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
      expect(response.status, operation).not.to.equal(405);
      if (response.status === 404) {
        // A 404 must be the documented "no such resource", never the router's "no such route".
        expect(body?.error?.message ?? "", operation).not.to.match(/^There is no /);
      }
    }
  });

  it("describes all sixteen SPEC.md endpoints with their documented statuses, plus /healthz and /readyz", () => {
    for (const [method, path, statuses] of specEndpoints) {
      const operation = document.paths[path]?.[method];
      expect(operation, `${method} ${path}`).to.be.an("object");
      expect(Object.keys(operation.responses), `${method} ${path}`).to.include.members(statuses.map(String));
    }
    expect(document.paths["/healthz"].get.security).to.deep.equal([]);
    expect(document.paths["/readyz"].get.responses).to.have.keys("200", "503", "500");
  });

  it("gives every operation a summary, a description and an operationId, and no generated limit texts", () => {
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        expect(operation.summary, `${method} ${path}`).to.be.a("string").and.not.equal("");
        expect(operation.description, `${method} ${path}`).to.be.a("string").with.length.above(20);
        expect(operation.operationId, `${method} ${path}`).to.match(/^[a-z][A-Za-z]+$/);
      }
    }
    const text = JSON.stringify(document);
    expect(text).not.to.match(/"title":"(maxLength|between|minLength|int)/);
    expect(text).not.to.match(/character\(s\)/);
  });

  it("takes its schemas from core (request limits as the use cases enforce them)", () => {
    const create = document.components.schemas.CreateDatasetRequest;
    expect(create.required).to.include.members(["name", "columns", "source"]);
    expect(create.additionalProperties).to.equal(false);
    expect(create.properties.name).to.include({ minLength: 1, maxLength: 120 });
    const limit = document.paths["/v1/datasets/{datasetId}/rows"].get.parameters.find((p: any) => p.name === "limit");
    expect(limit.schema).to.include({ type: "integer", minimum: 1, maximum: 500, default: 100 });
    const status = document.paths["/v1/datasets/{datasetId}/rows"].get.parameters.find((p: any) => p.name === "status");
    expect(status).to.include({ style: "form", explode: true });
    expect(status.schema.type).to.equal("array");
  });

  it("is the document the typed client (@gleaner/client) was generated from: run `npm run openapi` after a change", () => {
    const committed = JSON.parse(readFileSync(new URL("../../client/openapi.json", import.meta.url), "utf8"));
    expect(committed).to.deep.equal(JSON.parse(JSON.stringify(buildOpenApi(routes))));
  });

  it("answers GET /healthz and GET /readyz", async () => {
    const health = await fetch(`${host.url}/healthz`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ status: "ok" });
    const ready = await fetch(`${host.url}/readyz`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: "ok", checks: { storage: "ok" } });
  });
});
