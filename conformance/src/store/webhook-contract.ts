import {
  newId,
  type OutboxMessage,
  type OwnerId,
  pruneWebhookOutbox,
  type RunRecord,
  Storage,
  type WebhookRecord,
  webhookRetentionMs,
} from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as TestClock from "effect/TestClock";
import * as TestContext from "effect/TestContext";
import { it } from "../runner.js";
import type { StoreHarness } from "./harness.js";
import { anAcceptance, evidenceOf } from "./fixtures.js";

const aWebhook = (ownerId: OwnerId, name: string): WebhookRecord => ({
  id: newId(),
  ownerId,
  url: `https://hooks.example/${name}`,
  events: ["run.finished", "rows.changed"],
  datasetId: null,
  secret: `whsec_${name}`,
  createdAt: new Date().toISOString(),
});

/** A "now" past every lease this file gives, and a lease past that "now". */
const far = "2999-01-01T00:00:00.000Z";
const farther = "3999-01-01T00:00:00.000Z";
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

/**
 * The webhook outbox's promises, inside storeContract: events commit with the run's outcome and
 * only then; each webhook's messages of a dataset go out in order, one at a time, under a lease
 * that a second worker cannot take and a dead worker's expiry releases.
 */
export const webhookStoreCases = ({ run, runningRun }: StoreHarness): void => {
  const accepted = async (webhookNames: ReadonlyArray<string>) => {
    const { ownerId, dataset, running } = await runningRun(10);
    const webhooks = webhookNames.map((name) => aWebhook(ownerId, name));
    for (const webhook of webhooks) await run((s) => s.insertWebhook(webhook));
    const outcome = await run((s) => s.acceptRun(anAcceptance(running, 1, ["a", "b"])));
    expect(outcome._tag).to.equal("Accepted");
    return { ownerId, datasetId: dataset.id as RunRecord["datasetId"], running, webhooks };
  };
  const claim = (datasetId: RunRecord["datasetId"], now = iso(0), leaseUntil = farther) =>
    run((s) => s.claimWebhookMessage(datasetId, now, leaseUntil)).then(Option.getOrNull);
  /** Records a taken message's one attempt as delivered (204) or given up (400), at `at`. */
  const settle = (
    taken: { readonly message: OutboxMessage; readonly webhook: WebhookRecord },
    status: "delivered" | "failed",
    at = iso(0),
  ) =>
    run((s) =>
      s.recordWebhookAttempt(
        {
          messageId: taken.message.id,
          webhookId: taken.webhook.id,
          eventType: taken.message.payload.type,
          attempt: 1,
          status,
          responseStatus: status === "delivered" ? 204 : 400,
          error: null,
          durationMs: 3,
          nextRetryAt: null,
          attemptedAt: at,
        },
        { status, nextAttemptAt: null },
      ),
    );

  it("writes an accepted run's events with it, in order, one webhook's at a time under a lease", async () => {
    const { datasetId, running, webhooks } = await accepted(["first", "second"]);
    const one = await claim(datasetId);
    const two = await claim(datasetId);
    expect([one?.webhook.id, two?.webhook.id].sort()).to.deep.equal(webhooks.map((w) => w.id).sort());
    expect([one?.message.payload.type, two?.message.payload.type]).to.deep.equal(["run.finished", "run.finished"]);
    expect(one?.message.payload.data).to.include({ runId: running.id, status: "succeeded" });
    expect(one?.webhook.secret).to.match(/^whsec_/);
    // Both heads are leased: rows.changed waits behind them.
    expect(await claim(datasetId)).to.equal(null);
    // A lease that ends makes the message due again, under the same webhook-id.
    const retaken = await claim(datasetId, farther, iso(60_000));
    expect(retaken?.message.id).to.be.oneOf([one?.message.id, two?.message.id]);
    await settle(one!, "delivered");
    const next = await claim(datasetId, iso(0));
    expect(next?.webhook.id).to.equal(one?.webhook.id);
    expect(next?.message.payload).to.deep.include({ type: "rows.changed" });
    expect(next?.message.payload.data).to.deep.include({ after: 0, through: 2 });
    const attempts = await run((s) => s.listWebhookAttempts(one!.webhook.id, 10));
    expect(attempts.map((a) => [a.messageId, a.status, a.responseStatus])).to.deep.equal([
      [one!.message.id, "delivered", 204],
    ]);
  });

  it("claims past the webhooks it is told to skip; a released message is due again, no attempt counted", async () => {
    const { datasetId, webhooks } = await accepted(["busy", "free"]);
    const [busy, free] = webhooks;
    const taken = await run((s) => s.claimWebhookMessage(datasetId, iso(0), farther, [busy!.id])).then(
      Option.getOrNull,
    );
    expect(taken?.webhook.id).to.equal(free!.id);
    // Only the skipped webhook's head is left due: skipping it again finds nothing.
    expect(
      await run((s) => s.claimWebhookMessage(datasetId, iso(0), farther, [busy!.id])).then(Option.getOrNull),
    ).to.equal(null);
    const busyHead = await claim(datasetId);
    expect(busyHead?.webhook.id).to.equal(busy!.id);
    await run((s) => s.releaseWebhookMessage(busyHead!.message.id, iso(0)));
    const again = await claim(datasetId);
    expect(again?.message.id).to.equal(busyHead?.message.id);
    expect(again?.message.attempts).to.equal(0);
    expect(await run((s) => s.listWebhookAttempts(busy!.id, 10))).to.deep.equal([]);
  });

  it("says a dataset has deliveries due only while one of its pending messages is due", async () => {
    const { datasetId } = await accepted(["due"]);
    const quiet = await runningRun(10);
    await run((s) => s.acceptRun(anAcceptance(quiet.running, 1, ["a"])));
    expect(await run((s) => s.hasDueWebhookMessages(datasetId, iso(0)))).to.equal(true);
    expect(await run((s) => s.hasDueWebhookMessages(quiet.dataset.id as RunRecord["datasetId"], far))).to.equal(false);
    // Settled (delivered, then given up): nothing is due any more, whatever the time.
    for (const status of ["delivered", "failed"] as const) {
      const taken = await claim(datasetId);
      expect(taken).not.to.equal(null);
      await settle(taken!, status);
    }
    expect(await run((s) => s.hasDueWebhookMessages(datasetId, far))).to.equal(false);
  });

  it("names a dataset with pending deliveries due when its first waiting message is, not a later one", async () => {
    const { datasetId } = await accepted(["ordered"]);
    const dueOf = async () =>
      (await run((s) => s.pendingWebhookDatasets())).find((p) => p.datasetId === datasetId)?.dueAt;
    const createdDue = await dueOf();
    expect(createdDue).to.be.a("string");
    // The head (run.finished) is leased until `farther`; rows.changed, due earlier, waits behind it.
    const head = await claim(datasetId);
    expect(head?.message.payload.type).to.equal("run.finished");
    expect(await dueOf()).to.equal(farther);
    await settle(head!, "delivered");
    expect(await dueOf()).to.equal(createdDue);
  });

  it("prunes settled messages with their attempts once past retention, by Effect's Clock; never a pending one", async () => {
    const { datasetId, webhooks } = await accepted(["settles", "waits"]);
    const [settles, waits] = webhooks;
    // Both webhooks' run.finished are taken; settles' is delivered, then its rows.changed given up.
    const first = await claim(datasetId);
    const second = await claim(datasetId);
    const mine = first?.webhook.id === settles!.id ? first! : second!;
    await settle(mine, "delivered");
    await settle((await claim(datasetId))!, "failed");
    // Core's prune, run on a clock set to a moment after the event (all messages share the run's time).
    const pruneAt = (offsetMs: number) =>
      run((s) =>
        TestClock.setTime(Date.parse(mine.message.createdAt) + offsetMs).pipe(
          Effect.zipRight(pruneWebhookOutbox),
          Effect.provideService(Storage, s),
          Effect.provide(TestContext.TestContext),
        ),
      );
    const attemptsOf = async (webhookId: string) => (await run((s) => s.listWebhookAttempts(webhookId, 10))).length;
    expect(await pruneAt(webhookRetentionMs - 1_000)).to.equal(0);
    expect(await attemptsOf(settles!.id)).to.equal(2);
    expect(await pruneAt(webhookRetentionMs + 1_000)).to.be.at.least(2);
    expect(await attemptsOf(settles!.id)).to.equal(0);
    // The other webhook's messages are still pending (one leased, one waiting): kept, and still delivered.
    expect(await run((s) => s.hasDueWebhookMessages(datasetId, far))).to.equal(true);
    const retaken = await claim(datasetId, "4000-01-01T00:00:00.000Z");
    expect(retaken?.webhook.id).to.equal(waits!.id);
    expect(retaken?.message.payload.type).to.equal("run.finished");
  });

  it("prunes at most the limit of settled messages a call, so a backlog goes in short batches", async () => {
    const { datasetId, webhooks } = await accepted(["batched"]);
    // The webhook's two messages (run.finished, then rows.changed) settled: at least two to prune.
    await settle((await claim(datasetId))!, "delivered");
    await settle((await claim(datasetId))!, "failed");
    expect(await run((s) => s.pruneWebhookMessages(far, 1))).to.equal(1);
    while ((await run((s) => s.pruneWebhookMessages(far, 1_000))) === 1_000);
    expect(await run((s) => s.listWebhookAttempts(webhooks[0]!.id, 10))).to.deep.equal([]);
    expect(await run((s) => s.pruneWebhookMessages(far, 1_000))).to.equal(0);
  });

  it("gives a message to one of many workers claiming at once", async () => {
    const { datasetId } = await accepted(["only"]);
    const claims = await Promise.all(Array.from({ length: 8 }, () => claim(datasetId)));
    expect(claims.filter((c) => c !== null)).to.have.length(1);
  });

  it("writes no event for a held run, run.finished for a failed one, and never for another owner's webhook", async () => {
    const poor = await runningRun(0);
    await run((s) => s.insertWebhook(aWebhook(poor.ownerId, "poor")));
    const stranger = await runningRun(10);
    await run((s) => s.insertWebhook(aWebhook(stranger.ownerId, "stranger")));
    const held = await run((s) => s.acceptRun(anAcceptance(poor.running, 5, ["a"])));
    expect(held._tag).to.equal("Held");
    expect(await claim(poor.dataset.id as RunRecord["datasetId"], far)).to.equal(null);
    const failing = await runningRun(10, poor.ownerId);
    const failed = { ...failing.running, status: "failed" as const, completedAt: iso(0), error: "a check failed" };
    await run((s) => s.finishRun(failed, evidenceOf(failing.running)));
    const message = await claim(failing.dataset.id as RunRecord["datasetId"], far);
    expect(message?.message.payload.data).to.include({ runId: failed.id, status: "failed" });
    expect(await claim(failing.dataset.id as RunRecord["datasetId"], far)).to.equal(null);
    expect(await claim(stranger.dataset.id as RunRecord["datasetId"], far)).to.equal(null);
  });

  it("writes run.held for a held run to a webhook that asked for it, with the reason and the run's message", async () => {
    const poor = await runningRun(0);
    await run((s) => s.insertWebhook({ ...aWebhook(poor.ownerId, "held"), events: ["run.held"] }));
    const held = await run((s) => s.acceptRun(anAcceptance(poor.running, 5, ["a"])));
    expect(held._tag).to.equal("Held");
    const message = await claim(poor.dataset.id as RunRecord["datasetId"], far);
    expect(message?.message.payload).to.deep.include({ type: "run.held" });
    expect(message?.message.payload.data).to.deep.equal({
      runId: poor.running.id,
      datasetId: poor.dataset.id,
      reason: "credits",
      message: "insufficient credits",
    });
    expect(await claim(poor.dataset.id as RunRecord["datasetId"], far)).to.equal(null);
  });

  it("drops a deleted webhook's messages; another owner cannot delete or see it", async () => {
    const { ownerId, datasetId, webhooks } = await accepted(["doomed"]);
    const webhook = webhooks[0]!;
    const pending = async () => (await run((s) => s.pendingWebhookDatasets())).map((p) => p.datasetId);
    expect(await pending()).to.include(datasetId);
    const other = newId<OwnerId>();
    expect(await run((s) => s.deleteWebhook(other, webhook.id))).to.equal(false);
    expect(Option.isNone(await run((s) => s.getWebhook(other, webhook.id)))).to.equal(true);
    expect((await run((s) => s.listWebhooks(ownerId))).map((w) => w.id)).to.deep.equal([webhook.id]);
    expect(await run((s) => s.deleteWebhook(ownerId, webhook.id))).to.equal(true);
    expect(await pending()).not.to.include(datasetId);
    expect(await claim(datasetId, far)).to.equal(null);
    expect(await run((s) => s.listWebhooks(ownerId))).to.deep.equal([]);
  });
};
