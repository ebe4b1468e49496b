import { aDataset, anAcceptance, anOwner, aQueuedRun, evidenceOf } from "@gleaner/conformance";
import {
  Credits,
  decodesAsItIs,
  newId,
  RowRecord,
  Storage,
  StorageFailure,
  type StorageService,
  type WebhookRecord,
} from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import { after, before, describe, it } from "mocha";
import pg from "pg";
import { PostgresStoreLive } from "../src/index.js";
import { rowRecordOf, rowsSeen, rowsSeenColumns } from "../src/records.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

// Every record read back is decoded with core's schemas (docs/decisions/0012-one-house.md): a
// stored value the schema refuses fails the read with a StorageFailure that names the record and
// the field, instead of reaching the API as a silently wrong value.

await whenPostgresReachable("postgres store: stored records are decoded", (url) => {
  describe("postgres store: stored records are decoded with core's schemas", () => {
    const schema = freshSchema();
    const runtime = ManagedRuntime.make(PostgresStoreLive({ url, schema }));
    const sql = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` });
    const store = <A, E>(f: (s: StorageService) => Effect.Effect<A, E>) =>
      runtime.runPromise(Effect.either(Effect.flatMap(Storage, f)));
    const refusal = (answer: Either.Either<unknown, unknown>): StorageFailure => {
      if (Either.isRight(answer)) expect.fail(`the read answered ${JSON.stringify(answer.right)}`);
      expect(answer.left).to.be.instanceOf(StorageFailure);
      return answer.left as StorageFailure;
    };

    const owner = anOwner();
    const dataset = aDataset(owner.id);
    const queued = aQueuedRun(dataset);
    const webhook: WebhookRecord = {
      id: newId(),
      ownerId: owner.id,
      url: "https://hooks.example/decoding",
      events: ["run.finished", "rows.changed"],
      datasetId: dataset.id,
      secret: "whsec_decoding",
      createdAt: new Date().toISOString(),
    };
    let rowId = "";

    before(async () => {
      await store((s) => s.createOwner(owner));
      await store((s) => s.insertDataset(dataset));
      await store((s) => s.insertWebhook(webhook));
      await runtime.runPromise(Effect.flatMap(Credits, (c) => c.grant(owner.id, 10)));
      await store((s) => s.insertRun(queued));
      const claimed = await store((s) => s.claimRun(queued.id, new Date().toISOString(), false));
      const running = Option.getOrThrow(Either.getOrThrow(claimed)).run;
      const acceptance = anAcceptance(running, 1, ["row-a"]);
      rowId = acceptance.rows[0]?.row.id ?? "";
      expect(Either.getOrThrow(await store((s) => s.acceptRun(acceptance)))._tag).to.equal("Accepted");
    });
    after(async () => {
      await runtime.dispose();
      await sql.end();
      await dropSchema(url, schema);
    });

    it("reads back what it wrote, the ids checked against their brands", async () => {
      const rows = Either.getOrThrow(await store((s) => s.loadRows(dataset.id)));
      expect(rows.map((r) => r.id)).to.deep.equal([rowId]);
      const stored = Option.getOrThrow(Either.getOrThrow(await store((s) => s.getDataset(owner.id, dataset.id))));
      expect(stored.record).to.deep.equal(dataset);
      expect(stored.lastRun).to.include({ id: queued.id, status: "succeeded" });
    });

    // storedDecoder takes a record that decodes to itself as it is (core's stored-check.ts), which is only
    // so for a record in its schema's key order; in any other the row decodes the same, at full cost.
    it("builds each row it reads in RowRecord's key order, so the row decodes as it is", async () => {
      const { rows } = await sql.query(`select ${rowsSeenColumns} from ${rowsSeen} where r.id = $1`, [rowId]);
      expect(decodesAsItIs(RowRecord, rowRecordOf(rows[0]!))).to.equal(true);
    });

    it("a row whose status the schema does not know fails the read, naming the row and the field", async () => {
      await sql.query("update rows set status = 'vanished' where id = $1", [rowId]);
      const failure = refusal(await store((s) => s.loadRows(dataset.id)));
      expect(failure.message).to.contain(`stored row ${rowId}`).and.to.contain("/status");
      expect(failure.unavailable).to.equal(false);
      refusal(await store((s) => s.getRow(dataset.id, rowId as never)));
      await sql.query("update rows set status = 'new' where id = $1", [rowId]);
      expect(Either.isRight(await store((s) => s.loadRows(dataset.id)))).to.equal(true);
    });

    it("a revision naming a field by something other than a UUID fails the change feed's read", async () => {
      await sql.query("update revisions set changed_field_ids = '{not-a-field-id}' where row_id = $1", [rowId]);
      const read = await store((s) =>
        s.listRevisions(dataset.id, { after: 0, through: 100, limit: 10, rowId: null, fieldId: null }),
      );
      expect(refusal(read).message).to.contain("stored revision").and.to.contain("/changedFieldIds/0");
    });

    it("a dataset whose stored column is malformed fails the read, naming the dataset and the field", async () => {
      await sql.query(`update datasets set columns = '[{"id": "x"}]' where id = $1`, [dataset.id]);
      const failure = refusal(await store((s) => s.getDataset(owner.id, dataset.id)));
      expect(failure.message).to.contain(`stored dataset ${dataset.id}`).and.to.contain("/record/columns/0");
      // A run of it is still claimed (and so finished by the engine as failed); pinning the dataset fails.
      const next = aQueuedRun(dataset);
      await store((s) => s.insertRun(next));
      const claimed = Option.getOrThrow(
        Either.getOrThrow(await store((s) => s.claimRun(next.id, new Date().toISOString(), false))),
      );
      expect(claimed.run).to.include({ id: next.id, status: "running" });
      const pinned = refusal(await runtime.runPromise(Effect.either(claimed.dataset)));
      expect(pinned.message).to.contain(`stored dataset ${dataset.id}`).and.to.contain("/columns/0");
      // Ended by hand: finishRun would add an outbox message the last case below reads alone.
      await sql.query("update runs set status = 'failed', completed_at = now() where id = $1", [next.id]);
    });

    it("a run whose recorded checks are malformed fails the read instead of passing as checks", async () => {
      await sql.query(`update runs set checks = '[{"checkId": 7}]' where id = $1`, [queued.id]);
      const failure = refusal(await store((s) => s.listRuns(dataset.id, 10)));
      expect(failure.message).to.contain(`stored run ${queued.id}`).and.to.contain("/checks/0");
    });

    it("a run's evidence whose recorded fact or trace is malformed fails the evidence read, naming the run and the field", async () => {
      const evidence = () => store((s) => s.getRunEvidence(queued.id));
      const written = Option.getOrThrow(Either.getOrThrow(await evidence()));
      expect(written).to.deep.equal(evidenceOf(queued));

      await sql.query(
        `update run_evidence set facts = '[{"rowKey": "row-a", "pageUrl": "http://127.0.0.1/page-1", "index": -1, "cells": []}]'
          where run_id = $1`,
        [queued.id],
      );
      const badFact = refusal(await evidence());
      expect(badFact.message).to.contain(`stored run evidence ${queued.id}`).and.to.contain("/facts/0/index");

      await sql.query(
        `update run_evidence set facts = '[]', trace = jsonb_set(trace::jsonb, '{runId}', '"not-a-run"')::json where run_id = $1`,
        [queued.id],
      );
      expect(refusal(await evidence()).message)
        .to.contain(`stored run evidence ${queued.id}`)
        .and.to.contain("/trace/runId");
      // The trace read alone (GET /v1/runs/{id}/trace) refuses it too.
      expect(refusal(await store((s) => s.getRunTrace(queued.id))).message)
        .to.contain(`stored run trace ${queued.id}`)
        .and.to.contain("/runId");

      // So does the artifacts index a recipe that is not one.
      await sql.query(`update run_evidence set recipe = '{"version": 2}' where run_id = $1`, [queued.id]);
      expect(refusal(await store((s) => s.listRunArtifacts(queued.id))).message)
        .to.contain(`stored research recipe ${queued.id}`)
        .and.to.contain("/version");
      await sql.query("update run_evidence set recipe = null where run_id = $1", [queued.id]);

      await sql.query(
        "update run_evidence set trace = jsonb_set(trace::jsonb, '{runId}', to_jsonb(run_id::text))::json where run_id = $1",
        [queued.id],
      );
      expect(Option.getOrThrow(Either.getOrThrow(await evidence()))).to.deep.equal(written);
    });

    it("a run recorded before the plan and failures' step ids were kept still reads: plan null, failures as written", async () => {
      const older = [{ stage: "retrieval", code: "timeout", detail: "The site did not answer in time.", url: null }];
      await sql.query("update run_evidence set plan = null, failures = $2 where run_id = $1", [
        queued.id,
        JSON.stringify(older),
      ]);
      const evidence = Option.getOrThrow(Either.getOrThrow(await store((s) => s.getRunEvidence(queued.id))));
      expect(evidence.plan).to.equal(null);
      expect(evidence.failures).to.deep.equal(older);
    });

    it("a running run's trace progress with an unknown phase fails the trace read, naming the run and the field", async () => {
      const second = aQueuedRun(dataset);
      await store((s) => s.insertRun(second));
      const running = Option.getOrThrow(
        Either.getOrThrow(await store((s) => s.claimRun(second.id, new Date().toISOString(), false))),
      ).run;
      const trace = {
        ...evidenceOf(running).trace,
        phases: [{ phase: "read" as const, count: 1, totalMs: 4, maxMs: 4 }],
        steps: [
          {
            stepId: newId(),
            attemptId: newId(),
            phase: "read" as const,
            status: "succeeded" as const,
            startedAt: new Date().toISOString(),
            durationMs: 4,
            sourceUrl: "http://127.0.0.1/page-1",
          },
        ],
      };
      await store((s) => s.saveTraceProgress(running.id, trace));
      expect(Option.getOrThrow(Either.getOrThrow(await store((s) => s.getTraceProgress(running.id))))).to.deep.equal(
        trace,
      );
      await sql.query(
        `update run_trace_progress set trace = jsonb_set(trace::jsonb, '{steps,0,phase}', '"dreaming"')::json where run_id = $1`,
        [running.id],
      );
      const failure = refusal(await store((s) => s.getTraceProgress(running.id)));
      expect(failure.message).to.contain(`stored run trace ${running.id}`).and.to.contain("/steps/0/phase");
    });

    it("a webhook whose stored events the schema does not know fails the read, naming the webhook and the field", async () => {
      await sql.query("update webhooks set events = '{run.exploded}' where id = $1", [webhook.id]);
      const failure = refusal(await store((s) => s.listWebhooks(owner.id)));
      expect(failure.message).to.contain(`stored webhook ${webhook.id}`).and.to.contain("/events/0");
      refusal(await store((s) => s.getWebhook(owner.id, webhook.id)));
      await sql.query("update webhooks set events = '{run.finished,rows.changed}' where id = $1", [webhook.id]);
      expect(Either.getOrThrow(await store((s) => s.listWebhooks(owner.id)))).to.deep.equal([webhook]);
    });

    it("a recorded attempt with an unknown status fails the deliveries view, naming the attempt and the field", async () => {
      const now = new Date().toISOString();
      const claimed = Option.getOrThrow(
        Either.getOrThrow(await store((s) => s.claimWebhookMessage(dataset.id, now, now))),
      );
      expect(claimed.webhook).to.deep.equal(webhook);
      await store((s) =>
        s.recordWebhookAttempt(
          {
            messageId: claimed.message.id,
            webhookId: webhook.id,
            eventType: claimed.message.payload.type,
            attempt: 1,
            status: "retrying",
            responseStatus: 503,
            error: null,
            durationMs: 4,
            nextRetryAt: now,
            attemptedAt: now,
          },
          { status: "pending", nextAttemptAt: now },
        ),
      );
      await sql.query("update webhook_attempts set status = 'exploded' where message_id = $1", [claimed.message.id]);
      const failure = refusal(await store((s) => s.listWebhookAttempts(webhook.id, 10)));
      expect(failure.message).to.contain(`stored webhook attempt ${claimed.message.id} #1`).and.to.contain("/status");
    });

    it("an outbox message whose payload names no run is never signed and sent: taking it fails, naming it and the field", async () => {
      const { rows } = await sql.query<{ id: string }>(
        `update webhook_messages set payload = jsonb_set(payload, '{data,runId}', '"not-a-run"')
          where dataset_id = $1 and payload->>'type' = 'run.finished' returning id`,
        [dataset.id],
      );
      const messageId = rows[0]?.id;
      expect(messageId).to.match(/^msg_/);
      const failure = refusal(
        await store((s) => s.claimWebhookMessage(dataset.id, new Date().toISOString(), new Date().toISOString())),
      );
      expect(failure.message).to.contain(`stored webhook message ${messageId}`).and.to.contain("/payload/data/runId");
    });
  });
});
