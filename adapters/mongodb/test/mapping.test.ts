import {
  type DatasetId,
  type LedgerEntry,
  newId,
  type ObservationId,
  type RunId,
  type SourceObservation,
  StorageFailure,
} from "@gleaner/core";
import { expect } from "chai";
import { describe, it } from "mocha";
import { Binary, BSON, type Document, UUID } from "mongodb";
import { fromDate, fromUuid, isUuid, toDate, toUuid } from "../src/bson.js";
import { storageFailure } from "../src/errors.js";
import { type PageReadDoc, pageReadFromDoc } from "../src/page-reads.js";
import {
  apiKeyFromDoc,
  apiKeyToDoc,
  datasetFields,
  datasetFromDoc,
  datasetToDoc,
  ledgerFromDoc,
  ledgerToDoc,
  ownerFromDoc,
  ownerToDoc,
  type RunDoc,
  runFromDoc,
  runToDoc,
} from "../src/documents.js";
import {
  artifactEntryFromDoc,
  artifactFromDoc,
  artifactToDoc,
  evidenceFromDocs,
  evidenceToDoc,
  observationFromDoc,
  observationToDoc,
  recipeFromDoc,
  revisionFromDoc,
  revisionToDoc,
  type RowDoc,
  rowFromDoc,
  rowToDoc,
  type TraceProgressDoc,
  traceFromDoc,
} from "../src/row-documents.js";
import { aDataset, anAcceptance, anEdit, anOwner, aQueuedRun, evidenceOf } from "@gleaner/conformance";

/**
 * What the server would hand back: the document encoded to BSON bytes and decoded again with the
 * driver's own BSON library (default options, as the driver uses them for query results).
 */
const throughBson = <A extends Document>(doc: A): A => BSON.deserialize(BSON.serialize(doc)) as A;

/** Asserts the stored form holds a BSON UUID (Binary subtype 4), not a string. */
const expectUuid = (value: unknown, id: string) => {
  expect(value).to.be.instanceOf(Binary);
  expect((value as Binary).sub_type).to.equal(Binary.SUBTYPE_UUID);
  expect(fromUuid(value as Binary)).to.equal(id);
};

const expectDate = (value: unknown, iso: string) => {
  expect(value).to.be.instanceOf(Date);
  expect((value as Date).toISOString()).to.equal(iso);
};

describe("mongodb: BSON conversions", () => {
  it("accepts only canonical lowercase UUIDs, as the memory store's string comparison does", () => {
    const id = newId();
    expect(isUuid(id)).to.equal(true);
    expect(isUuid(id.toUpperCase())).to.equal(false);
    expect(isUuid(id.replaceAll("-", ""))).to.equal(false);
    expect(isUuid("not-a-uuid")).to.equal(false);
    expect(() => toUuid(id.toUpperCase())).to.throw(TypeError, /canonical/);
  });

  it("round-trips a UUID through BSON bytes, from UUID and from a plain subtype-4 Binary", () => {
    const id = newId();
    const decoded = throughBson({ id: toUuid(id) }).id as Binary;
    expectUuid(decoded, id);
    const plain = new Binary(new UUID(id).id, Binary.SUBTYPE_UUID);
    expect(fromUuid(plain)).to.equal(id);
  });

  it("round-trips ISO timestamps with milliseconds and refuses an unparseable one", () => {
    const iso = "2026-11-21T22:43:01.123Z";
    expect(fromDate(throughBson({ at: toDate(iso) }).at as Date)).to.equal(iso);
    expect(() => toDate("yesterday")).to.throw(TypeError, /ISO/);
  });
});

describe("mongodb: document mapping", () => {
  it("owners and API keys keep ids as UUID and dates as Date, and read back equal", () => {
    const owner = anOwner();
    const stored = throughBson(ownerToDoc(owner));
    expectUuid(stored._id, owner.id);
    expectDate(stored.createdAt, owner.createdAt);
    expect(ownerFromDoc(stored)).to.deep.equal(owner);

    const key = {
      hash: "a".repeat(64),
      ownerId: owner.id,
      createdAt: owner.createdAt,
      id: globalThis.crypto.randomUUID(),
      name: "ci",
      prefix: "gl_live_",
      lastFour: "wxyz",
      lastUsedAt: owner.createdAt,
    };
    const keyDoc = throughBson(apiKeyToDoc(key));
    expect(keyDoc._id).to.equal(key.hash);
    expectUuid(keyDoc.ownerId, owner.id);
    expectUuid(keyDoc.keyId, key.id);
    expectDate(keyDoc.lastUsedAt, key.lastUsedAt);
    expect(apiKeyFromDoc(keyDoc)).to.deep.equal(key);
    // A key made before keys could be listed reads back with its listing fields null.
    const older = { hash: "b".repeat(64), ownerId: owner.id, createdAt: owner.createdAt };
    expect(apiKeyFromDoc(throughBson(apiKeyToDoc(older)))).to.deep.equal({
      ...older,
      name: null,
      prefix: null,
      lastFour: null,
      lastUsedAt: null,
    });
  });

  it("a dataset reads back equal; a new one starts its revision counter at 0; updates do not touch it", () => {
    const dataset = {
      ...aDataset(anOwner().id),
      question: "Which books?",
      scheduleState: { cron: "0 * * * *", status: "active" as const, reason: null },
      schedule: "0 * * * *",
    };
    const stored = throughBson(datasetToDoc(dataset));
    expectUuid(stored._id, dataset.id);
    expectUuid(stored.ownerId, dataset.ownerId);
    expectDate(stored.createdAt, dataset.createdAt);
    expectDate(stored.updatedAt, dataset.updatedAt);
    expect(stored.lastSequence).to.equal(0);
    expect(datasetFromDoc(stored)).to.deep.equal(dataset);
    expect(datasetFields(dataset)).to.not.have.property("lastSequence");
    expect(datasetFields(dataset)).to.not.have.property("_id");
  });

  it("a run reads back equal, and is `active` exactly while queued or running", () => {
    const queued = aQueuedRun(aDataset(anOwner().id));
    const stored = throughBson(runToDoc(queued));
    expectUuid(stored._id, queued.id);
    expectUuid(stored.datasetId, queued.datasetId);
    expectDate(stored.queuedAt, queued.queuedAt);
    expect(stored.startedAt).to.equal(null);
    expect(runFromDoc(stored)).to.deep.equal(queued);
    const statuses = ["queued", "running", "succeeded", "failed", "blocked", "held"] as const;
    expect(statuses.map((status) => runToDoc({ ...queued, status }).active)).to.deep.equal([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it("rows and revisions (run-made and edits) read back equal, with native ids and dates", () => {
    const running = { ...aQueuedRun(aDataset(anOwner().id)), status: "running" as const };
    const acceptance = anAcceptance(running, 1, ["a"]);
    const row = acceptance.rows[0]!.row;
    const storedRow = throughBson(rowToDoc(row));
    expectUuid(storedRow.revisionId, row.revisionId!);
    expectUuid(storedRow.firstSeenRunId, row.firstSeenRunId);
    expectDate(storedRow.observedAt, row.observedAt);
    expect(rowFromDoc(storedRow)).to.deep.equal(row);
    expect(rowFromDoc(throughBson(rowToDoc({ ...row, revisionId: null })))).to.have.property("revisionId", null);

    const created = acceptance.revisions[0]!;
    const storedRevision = throughBson(revisionToDoc(created, 7));
    expect(storedRevision.sequence).to.equal(7);
    expectUuid(storedRevision.rowId, created.rowId);
    expect(revisionFromDoc(storedRevision)).to.deep.equal({ ...created, sequence: 7 });

    const edit = anEdit(row, "request-1").revision;
    const withActor = { ...edit, actorId: running.ownerId, changedFieldIds: [newId()] as never };
    const storedEdit = throughBson(revisionToDoc(withActor, 8));
    expect(storedEdit.requestId).to.equal("request-1");
    expectUuid(storedEdit.previousRevisionId, edit.previousRevisionId!);
    expect(revisionFromDoc(storedEdit)).to.deep.equal({ ...withActor, sequence: 8 });
  });

  it("observations keep absent optional fields absent (not null) both ways", () => {
    const bare: SourceObservation = {
      id: newId<ObservationId>(),
      sourceUrl: "http://127.0.0.1/page-1",
      observedAt: "2026-11-01T00:00:00.000Z",
      contentDigest: `sha256:${"1".repeat(64)}`,
      entries: [{ id: "e1", excerpt: "A Light in the Attic", truncated: false }],
    };
    const bareDoc = throughBson(observationToDoc(bare));
    expect(bareDoc).to.not.have.property("datasetId");
    expect(bareDoc).to.not.have.property("method");
    expect(observationFromDoc(bareDoc)).to.deep.equal(bare);

    const full: SourceObservation = {
      ...bare,
      datasetId: newId<DatasetId>(),
      runId: newId<RunId>(),
      localId: "p1",
      pageKey: "page-1",
      method: "deterministic",
    };
    const fullDoc = throughBson(observationToDoc(full));
    expectUuid(fullDoc.datasetId, full.datasetId!);
    expectUuid(fullDoc.runId, full.runId!);
    expectDate(fullDoc.observedAt, full.observedAt);
    expect(observationFromDoc(fullDoc)).to.deep.equal(full);
  });

  it("evidence and its artifacts (one document per page, in order, NUL bytes kept) read back equal", () => {
    const run = aQueuedRun(aDataset(anOwner().id));
    const evidence = evidenceOf(run);
    const second = { ...evidence.artifacts[0]!, id: "page-2", body: null, truncated: true, size: 70_000 };
    const both = { ...evidence, artifacts: [evidence.artifacts[0]!, second] };
    const stored = throughBson(evidenceToDoc(run.id, both));
    expectUuid(stored._id, run.id);
    const artifacts = both.artifacts.map((artifact, position) =>
      throughBson(artifactToDoc(run.id, artifact, position)),
    );
    expect(artifacts.map((a) => a.position)).to.deep.equal([0, 1]);
    expect(artifactFromDoc(artifacts[0]!).body).to.equal("<p>a\u0000b</p>");
    expect(evidenceFromDocs(stored, artifacts)).to.deep.equal(both);
    // The narrower reads: the fields their projections leave (trace; recipe; artifacts without body).
    const { _id, trace, recipe } = stored;
    expect(traceFromDoc({ _id, trace })).to.deep.equal(both.trace);
    expect(recipeFromDoc({ _id, ...(recipe ? { recipe } : {}) })).to.equal(null);
    const entries = artifacts.map(({ body: _body, ...rest }) => artifactEntryFromDoc(rest));
    expect(entries).to.deep.equal(both.artifacts.map(({ body: _body, ...entry }) => entry));
    expect(() => recipeFromDoc({ _id, recipe: { version: 2 } as never })).to.throw(StorageFailure, "/version");
  });

  it("ledger entries read back equal, keep their insertion number, and null ids stay null", () => {
    const ownerId = anOwner().id;
    const grant: LedgerEntry = {
      id: newId(),
      kind: "grant",
      amount: 10,
      runId: null,
      datasetId: null,
      pages: null,
      createdAt: "2026-11-01T00:00:00.000Z",
    };
    const charge: LedgerEntry = {
      ...grant,
      id: newId(),
      kind: "charge",
      amount: -3,
      pages: 3,
      runId: newId<RunId>(),
      datasetId: newId<DatasetId>(),
    };
    const grantDoc = throughBson(ledgerToDoc(ownerId, 1, grant));
    expect(grantDoc.seq).to.equal(1);
    expect(grantDoc.runId).to.equal(null);
    expect(ledgerFromDoc(grantDoc)).to.deep.equal(grant);
    const chargeDoc = throughBson(ledgerToDoc(ownerId, 2, charge));
    expectUuid(chargeDoc.runId, charge.runId!);
    expect(ledgerFromDoc(chargeDoc)).to.deep.equal(charge);
  });

  it("a document the record's schema refuses throws a StorageFailure naming it and the field, never a wrong value", () => {
    const running = { ...aQueuedRun(aDataset(anOwner().id)), status: "running" as const };
    const row = anAcceptance(running, 1, ["a"]).rows[0]!.row;
    const vanished = { ...throughBson(rowToDoc(row)), status: "vanished" } as unknown as RowDoc;
    const refusal = (read: () => unknown): StorageFailure => {
      try {
        read();
      } catch (error) {
        expect(error).to.be.instanceOf(StorageFailure);
        return error as StorageFailure;
      }
      return expect.fail("the document was read back");
    };
    const failure = refusal(() => rowFromDoc(vanished));
    expect(failure.message).to.contain(`MongoDB: the stored row ${row.id}`).and.to.contain("/status");
    // Passed on as it is by the store's operations, not wrapped as a driver failure.
    expect(storageFailure("loadRows")(failure)).to.equal(failure);

    const queued = aQueuedRun(aDataset(anOwner().id));
    const checks = { ...throughBson(runToDoc(queued)), checks: [{ checkId: 7 }] } as unknown as RunDoc;
    expect(refusal(() => runFromDoc(checks)).message)
      .to.contain(`stored run ${queued.id}`)
      .and.to.contain("/checks/0");

    const evidence = throughBson(evidenceToDoc(queued.id, evidenceOf(queued)));
    const badFact = { ...evidence, facts: [{ rowKey: "a", pageUrl: "http://127.0.0.1/", index: -1, cells: [] }] };
    expect(refusal(() => evidenceFromDocs(badFact, [])).message)
      .to.contain(`MongoDB: the stored run evidence ${queued.id}`)
      .and.to.contain("/facts/0/index");
    const progress = { _id: evidence._id, trace: { ...evidence.trace, phases: [{ phase: "dreaming" }] } };
    expect(refusal(() => traceFromDoc(progress as unknown as TraceProgressDoc)).message)
      .to.contain(`stored run trace ${queued.id}`)
      .and.to.contain("/phases/0/phase");
  });

  it("evidence recorded before the plan and the failures' step ids were kept reads back as it was written", () => {
    const run = aQueuedRun(aDataset(anOwner().id));
    const { plan: _plan, ...current } = evidenceToDoc(run.id, evidenceOf(run));
    const failures = [{ stage: "retrieval", code: "timeout", detail: "The site did not answer in time.", url: null }];
    const older = throughBson({ ...current, failures });
    const read = evidenceFromDocs(older, []);
    expect(read.plan).to.equal(null);
    expect(read.failures).to.deep.equal(failures);
    expect(read.trace).to.deep.equal(evidenceOf(run).trace);
  });
});

describe("MongoDB page reads (decision 0042)", () => {
  const extraction = {
    records: [{ index: 0, rowKey: "https://shop.example/b/1", cells: [["f1", 1.5, null, "£1.50"]] }],
    entries: [{ id: "0", excerpt: "<article>…</article>", truncated: false }],
    next: "https://shop.example/p2",
  };
  const doc = (stored: unknown): PageReadDoc => ({
    datasetId: toUuid(newId<DatasetId>()),
    url: "https://shop.example/p1",
    runId: toUuid(newId<RunId>()),
    recipe: "r".repeat(64),
    finalUrl: "https://shop.example/p1",
    sha256: "a".repeat(64),
    contentType: "text/html",
    etag: '"v1"',
    lastModified: null,
    extraction: stored as PageReadDoc["extraction"],
    body: "<html></html>",
  });

  it("a kept read comes back through BSON with its extraction, validators and body", () => {
    const written = doc(extraction);
    const read = pageReadFromDoc(throughBson(written));
    expect(read).to.deep.equal({
      runId: fromUuid(written.runId),
      recipe: written.recipe,
      url: written.url,
      finalUrl: written.finalUrl,
      sha256: written.sha256,
      contentType: "text/html",
      etag: '"v1"',
      lastModified: null,
      extraction,
      body: "<html></html>",
    });
  });

  it("an extraction that no longer decodes reads as none, so the engine parses the page", () => {
    const read = pageReadFromDoc(throughBson(doc({ ...extraction, records: [{ index: -1 }] })));
    expect(read.extraction).to.equal(null);
    expect(read.sha256).to.equal("a".repeat(64));
  });
});
