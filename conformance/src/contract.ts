import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/**
 * Contract testing: every answer the suite receives is checked against the server's own OpenAPI
 * document (the schema of that operation and status). An undocumented status or a body that does
 * not match its schema fails the case, so the document cannot drift from what the server sends.
 */
type Json = Record<string, any>;

interface Operation {
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  readonly auth: boolean;
  readonly responses: ReadonlyMap<string, ValidateFunction | null>;
}

export interface Contract {
  /** Throws an Error describing the breach when the answer does not match the document. */
  readonly check: (answer: { method: string; path: string; status: number; headers: Headers; body: unknown }) => void;
  readonly operationCount: number;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const makeContract = (document: Json): Contract => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // One schema holding the components, so every `#/components/schemas/X` resolves against it.
  ajv.addSchema({ $id: "gleaner:openapi", components: document.components });
  const compile = (schema: Json): ValidateFunction =>
    ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"gleaner:openapi#/components/')));
  const errorSchema = compile({ $ref: "#/components/schemas/Error" });

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(document.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!["get", "post", "patch", "put", "delete"].includes(method)) continue;
      const responses = new Map<string, ValidateFunction | null>();
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        const schema = response.content?.["application/json"]?.schema;
        responses.set(status, schema ? compile(schema) : null);
      }
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern,
        auth: operation.security?.length !== 0,
        responses,
      });
    }
  }

  const check: Contract["check"] = ({ method, path, status, headers, body }) => {
    const where = `${method} ${path} -> ${status}`;
    const candidates = operations.filter((o) => o.pattern.test(path));
    const operation = candidates.find((o) => o.method === method);
    if (!operation) {
      // No such operation: the answer must still be the error body (404 for an unknown path, 405 for a known one).
      const expected = candidates.length > 0 ? 405 : 404;
      if (status !== expected)
        throw new Error(`Contract: ${where} has no operation in the document (expected ${expected}).`);
      if (!errorSchema(body))
        throw new Error(`Contract: ${where} is not the error body: ${ajv.errorsText(errorSchema.errors)}`);
      return;
    }
    const validate = operation.responses.get(String(status));
    if (validate === undefined) {
      throw new Error(
        `Contract: ${where} is not documented for ${operation.method} ${operation.template}: ${JSON.stringify(body)}`,
      );
    }
    if (validate && !validate(body)) {
      throw new Error(
        `Contract: ${where} does not match the document's schema: ${ajv.errorsText(validate.errors, { separator: "; " })}: ${JSON.stringify(body).slice(0, 500)}`,
      );
    }
    if (operation.auth && headers.get("x-credits-remaining") === null) {
      throw new Error(`Contract: ${where} has no X-Credits-Remaining header.`);
    }
  };
  return { check, operationCount: operations.length };
};

const contracts = new Map<string, Promise<Contract>>();

/** The contract of the server at `baseUrl`, read once from its /v1/openapi.json. */
export const contractOf = (baseUrl: string): Promise<Contract> => {
  const origin = new URL(baseUrl).origin;
  let contract = contracts.get(origin);
  if (!contract) {
    contract = fetch(new URL("/v1/openapi.json", origin)).then(async (response) => {
      if (!response.ok) throw new Error(`Contract: GET /v1/openapi.json answered ${response.status}.`);
      return makeContract((await response.json()) as Json);
    });
    contracts.set(origin, contract);
  }
  return contract;
};
