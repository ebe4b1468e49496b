import { expect } from "chai";
import { describe, it } from "mocha";
import * as Either from "effect/Either";
import * as Schema from "effect/Schema";
import { storedDecoder } from "../src/decode.js";
import { StoredExtraction } from "../src/page-reads.js";
import { RowRecord, RunEvidenceRecord, RunRecord, StoredRevision } from "../src/run-domain.js";
import { SourceObservation } from "../src/schema/row.js";
import { identityCheck } from "../src/stored-check.js";

// identityCheck may answer true only where Effect's decoder succeeds and answers the input itself,
// key order included (stored-check.ts). Each stored record below is mutated at every place in every
// way a store could get it wrong; wherever the check passes a mutant, decoding must agree.

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const at = "2026-11-23T12:00:00.000Z";
const ref = { observationId: uuid(9), entryId: "3" };

const samples: ReadonlyArray<[string, Schema.Schema<any, any, never>, unknown]> = [
  [
    "row",
    RowRecord,
    {
      id: uuid(1),
      rowKey: "isbn:1",
      data: { title: "A book", price: 12.5, inStock: true, note: null },
      revisionId: uuid(2),
      presence: "present",
      missingReasons: { note: "not_found" },
      status: "unchanged",
      firstSeenRunId: uuid(3),
      lastSeenRunId: uuid(4),
      sourceUrl: "http://books.test/page-1",
      observedAt: at,
      updatedAt: at,
      datasetId: uuid(5),
      identity: {
        version: 1,
        key: `entity:${"a".repeat(64)}`,
        kind: "product",
        anchor: "A book",
        aliases: ["A book"],
      },
      evidence: { title: [ref], price: [ref, { ...ref, entryId: "4" }] },
      overrides: { price: { value: 10, evidence: [ref], missingReason: "unknown" } },
    },
  ],
  [
    "extraction",
    StoredExtraction,
    {
      records: [
        {
          index: 0,
          rowKey: "isbn:1",
          cells: [
            ["title", "A book", null, "A book"],
            ["price", null, "not_found", null],
          ],
        },
      ],
      entries: [{ id: "0", excerpt: "A book £12.50", truncated: false }],
      next: "http://books.test/page-2",
    },
  ],
  [
    "run",
    RunRecord,
    {
      id: uuid(1),
      datasetId: uuid(2),
      status: "succeeded",
      checks: [{ checkId: "minimum_items", passed: true, message: "20 items" }],
      rowDeltas: { new: 1, changed: 0, gone: 0 },
      error: null,
      queuedAt: at,
      startedAt: at,
      completedAt: at,
      ownerId: uuid(3),
      trigger: "manual",
      attempts: 1,
      chargedPages: 2,
    },
  ],
  [
    "revision",
    StoredRevision,
    {
      id: uuid(1),
      datasetId: uuid(2),
      rowId: uuid(3),
      sequence: 7,
      schemaVersion: 1,
      previousRevisionId: null,
      runId: uuid(4),
      actorId: null,
      requestId: null,
      requestHash: null,
      origin: "collection",
      kind: "created",
      changedFieldIds: [uuid(6)],
      data: { title: "A book" },
      evidence: { title: [ref] },
      overrides: {},
      missingReasons: {},
      presence: "present",
      createdAt: at,
      before: null,
      beforeOverrides: null,
    },
  ],
  [
    "observation",
    SourceObservation,
    {
      id: uuid(1),
      sourceUrl: "http://books.test/page-1",
      observedAt: at,
      contentDigest: "ab".repeat(32),
      entries: [{ id: "0", excerpt: "A book", truncated: false }],
      runId: uuid(2),
      method: "deterministic",
    },
  ],
  [
    "run evidence",
    RunEvidenceRecord,
    {
      trace: {
        runId: uuid(1),
        datasetId: uuid(2),
        queueMs: 3,
        wallMs: 120,
        truncated: false,
        phases: [{ phase: "read", count: 1, totalMs: 5, maxMs: 5 }],
        steps: [
          {
            stepId: uuid(3),
            attemptId: uuid(4),
            phase: "read",
            status: "succeeded",
            startedAt: at,
            durationMs: 5,
            candidateRows: 20,
            matchedRows: 20,
            sourceUrl: "http://books.test/page-1",
          },
        ],
        discovery: null,
        harnessVersion: null,
      },
      facts: [
        {
          rowKey: "isbn:1",
          pageUrl: "http://books.test/page-1",
          index: 0,
          cells: [{ fieldId: uuid(5), value: 12.5, missingReason: null, raw: "£12.50" }],
        },
      ],
      failures: [],
      plan: {
        recipe: null,
        checks: [{ checkId: "coverage", records: [] }],
        reconciliation: {
          new: 1,
          changed: 0,
          unchanged: 0,
          gone: 0,
          rowIds: { "isbn:1": uuid(6) },
          created: ["isbn:1"],
          goneKeys: [],
          changedKeys: [],
          returnedKeys: [],
          overridesKept: [],
        },
        pagesToCharge: 1,
      },
    },
  ],
];

const replacements: ReadonlyArray<unknown> = [
  undefined,
  null,
  0,
  -1,
  1.5,
  Number.NaN,
  "",
  "x",
  "not_a_reason",
  true,
  {},
  [],
  [null],
  uuid(8).toUpperCase(),
  "2026-13-45T99:00:00Z",
  new Date(0),
  Object.assign(Object.create({ inherited: 1 }), { own: 1 }),
];

/** Every variant of `value` with one thing wrong: a value replaced, a key dropped, added or moved. */
function* mutants(value: unknown): Generator<unknown> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const inner of [...replacements.map((r) => r), ...mutants(value[i])]) {
        yield value.map((v, j) => (j === i ? inner : v));
      }
      yield value.filter((_, j) => j !== i);
    }
    yield [...value, value[0]];
    yield [...value, "extra"];
    yield Object.assign([...value], { extra: 1 });
  } else if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    for (const [key, inner] of entries) {
      for (const replaced of [...replacements, ...mutants(inner)]) yield { ...value, [key]: replaced };
      yield Object.fromEntries(entries.filter(([k]) => k !== key));
      yield { ...Object.fromEntries(entries.filter(([k]) => k !== key)), [key]: inner };
    }
    yield { ...value, extra: 1 };
    // JSON.parse makes "__proto__" an own key, which Effect's copy by assignment would not keep.
    yield JSON.parse(`{"__proto__": 1${entries.length === 0 ? "}" : `, ${JSON.stringify(value).slice(1)}`}`);
    yield Object.fromEntries(entries.reverse());
    yield [value];
  }
}

const orderOf = (value: unknown): string => JSON.stringify(value);

describe("identityCheck (storedDecoder's fast path)", () => {
  for (const [name, schema, raw] of samples) {
    const decode = Schema.decodeUnknownEither(schema, { errors: "first" });
    const check = identityCheck(schema.ast, { errors: "first" });

    it(`covers the stored ${name} schema and passes a stored ${name} as it is`, () => {
      expect(check, "the schema is covered").to.not.equal(null);
      const valid = Either.getOrThrow(decode(raw));
      expect(check!(valid)).to.equal(true);
      const decoded = storedDecoder(schema, "Test", name)(valid);
      expect(Either.getOrThrow(decoded)).to.equal(valid);
    });

    it(`passes no mutant of a ${name} that Effect would refuse or change`, () => {
      const valid = Either.getOrThrow(decode(raw));
      let passed = 0;
      let refused = 0;
      for (const mutant of mutants(valid)) {
        const decoded = decode(mutant);
        if (check!(mutant)) {
          passed++;
          expect(Either.isRight(decoded), `passed ${orderOf(mutant)}`).to.equal(true);
          const right = Either.getOrThrow(decoded);
          expect(right).to.deep.equal(mutant);
          expect(orderOf(right)).to.equal(orderOf(mutant));
        } else {
          refused++;
          // storedDecoder then answers exactly what Effect's decoder does.
          const stored = storedDecoder(schema, "Test", name)(mutant);
          expect(Either.isRight(stored)).to.equal(Either.isRight(decoded));
          if (Either.isRight(stored)) expect(stored.right).to.deep.equal(Either.getOrThrow(decoded));
        }
      }
      expect(passed, "some mutants are still valid").to.be.greaterThan(0);
      expect(refused, "most are not").to.be.greaterThan(passed);
    });
  }

  it("leaves the stored record's first problem and message to Effect's decoder", () => {
    const decodeRow = storedDecoder(RowRecord, "PostgreSQL", "row");
    const row = Either.getOrThrow(Schema.decodeUnknownEither(RowRecord)(samples[0]![2]));
    const failure = decodeRow({ ...row, evidence: { title: [{ observationId: "nope", entryId: "3" }] } });
    expect(Either.isLeft(failure) && failure.left.message).to.equal(
      `PostgreSQL: the stored row ${uuid(1)} is not a valid row: /evidence/title/0/observationId Expected a Universally Unique Identifier, actual "nope".`,
    );
  });

  it("answers, for a row whose keys come in another order, Effect's value in the schema's order", () => {
    const decodeRow = storedDecoder(RowRecord, "PostgreSQL", "row");
    const row = Either.getOrThrow(Schema.decodeUnknownEither(RowRecord)(samples[0]![2])) as Record<string, unknown>;
    const reversed = Object.fromEntries(Object.entries(row).reverse());
    const decoded = Either.getOrThrow(decodeRow(reversed));
    expect(decoded).to.not.equal(reversed);
    expect(Object.keys(decoded)).to.deep.equal(Object.keys(row));
  });
});
