import { expect } from "chai";
import fc from "fast-check";
import { allowMs, before, describe, it } from "../runner.js";
import { validDataset } from "../bodies.js";
import type { Capability, Owner, SuiteContext } from "../context.js";

type Json = Record<string, any>;

/** Requests per operation; CI keeps the default (a few thousand in all), GLEANER_FUZZ_RUNS goes longer. */
const runsPerOperation = Number(process.env.GLEANER_FUZZ_RUNS ?? 120);

const pathValue = fc.oneof(
  fc.uuid(),
  fc.string({ maxLength: 40 }),
  fc.constantFrom("0", "-1", "%00", "..", "null", "00000000-0000-0000-0000-000000000000"),
);
const queryValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer().map(String),
  fc.constantFrom("", "0x10", "1e309", "NaN", "true", "[]", "%", "9".repeat(40)),
);
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constant(validDataset()).chain((valid) =>
    fc
      .record({ key: fc.constantFrom(...Object.keys(valid)), value: fc.jsonValue({ maxDepth: 3 }) })
      .map(({ key, value }) => ({
        ...valid,
        [key]: value,
      })),
  ),
  fc.string({ maxLength: 60 }).map((text) => ({ raw: text })),
);

/**
 * A property-based fuzz of every operation in the OpenAPI document: random path ids, query values
 * (and unknown parameters), bodies and raw text, with and without a key. Every answer must be below
 * 500, and (through the suite's contract check) documented for its operation with the error body
 * and X-Credits-Remaining.
 */
export const fuzzCases = (ctx: SuiteContext): void => {
  describe("fuzzing every operation of the OpenAPI document", function () {
    allowMs(this, 300_000);
    let owner: Owner;
    let operations: Array<{ method: string; path: string; query: string[]; hasBody: boolean }>;
    before(async () => {
      owner = await ctx.owner(1);
      const document = (await ctx.anonymous().get("/v1/openapi.json")).body;
      operations = Object.entries<Json>(document.paths).flatMap(([path, item]) =>
        Object.entries<Json>(item).map(([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          query: (operation.parameters ?? []).filter((p: Json) => p.in === "query").map((p: Json) => p.name),
          hasBody: operation.requestBody !== undefined,
        })),
      );
    });

    it(`answers ${runsPerOperation} random requests per operation without a 5xx, each as documented`, async () => {
      let sent = 0;
      for (const operation of operations) {
        const request = fc.record({
          params: fc.array(pathValue, { minLength: 4, maxLength: 4 }),
          query: fc.dictionary(
            fc.oneof(
              fc.constantFrom(...(operation.query.length ? operation.query : ["x"])),
              fc.string({ maxLength: 8 }),
            ),
            fc.oneof(queryValue, fc.array(queryValue, { minLength: 2, maxLength: 3 })),
            { maxKeys: 4 },
          ),
          body: operation.hasBody ? fc.option(body) : fc.constant(null),
          anonymous: fc.boolean().map((b) => b && Math.random() < 0.2),
        });
        await fc.assert(
          fc.asyncProperty(request, async ({ params, query, body, anonymous }) => {
            let i = 0;
            const path = operation.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(params[i++] ?? ""));
            const client = anonymous ? ctx.anonymous() : owner;
            const raw = body !== null && typeof body === "object" && "raw" in (body as Json);
            const answer = await client.request(operation.method, path, {
              query: query as Record<string, string | string[]>,
              ...(body === null ? {} : raw ? { rawBody: String((body as Json).raw) } : { body }),
            });
            sent++;
            expect(answer.status, `${operation.method} ${path} -> ${JSON.stringify(answer.body)}`).to.be.below(500);
            expect(answer.headers.get("x-credits-remaining")).to.match(/^\d+$/);
          }),
          { numRuns: runsPerOperation },
        );
      }
      console.log(`    [fuzz] ${sent} requests over ${operations.length} operations, no 5xx`);
      expect(sent).to.equal(runsPerOperation * operations.length);
    });
  });
};

export const fuzzCapability: Capability = {
  name: "fuzz",
  register: fuzzCases,
};
