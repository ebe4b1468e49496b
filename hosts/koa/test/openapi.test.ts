import { Validator } from "@seriousme/openapi-schema-validator";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";
import { type RunningHost, startHost } from "@gleaner/koa";

describe("GET /v1/openapi.json", () => {
  let host: RunningHost;
  before(async () => {
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { port: 0, host: "127.0.0.1" },
      logger: pino({ level: "silent" }),
    });
  });
  after(() => host.close());

  it("is served without a key and is a valid OpenAPI 3.1 document", async () => {
    const response = await fetch(`${host.url}/v1/openapi.json`);
    expect(response.status).to.equal(200);
    const document = await response.json();
    expect(document.openapi).to.equal("3.1.0");
    const result = await new Validator().validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it("describes every endpoint of this version with its documented statuses and error codes", async () => {
    const document = await (await fetch(`${host.url}/v1/openapi.json`)).json();
    expect(Object.keys(document.paths)).to.include.members(["/v1/datasets", "/v1/datasets/{datasetId}", "/v1/usage"]);
    expect(Object.keys(document.paths["/v1/datasets"].post.responses)).to.include.members([
      "201",
      "401",
      "409",
      "422",
      "500",
    ]);
    expect(document.components.schemas.Error.properties.error.properties.code.enum).to.include.members([
      "validation_error",
      "not_found",
      "unauthorized",
      "payload_too_large",
    ]);
    // Request schemas come from the same Effect Schemas that validate requests.
    const create = document.components.schemas.CreateDatasetRequest;
    expect(create.required).to.include.members(["name", "columns", "source"]);
    expect(create.additionalProperties).to.equal(false);
  });

  it("answers GET /healthz", async () => {
    const response = await fetch(`${host.url}/healthz`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ status: "ok" });
  });
});
