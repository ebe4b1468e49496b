import { expect } from "chai";
import type { RunRecord } from "../src/run-domain.js";
import { outboxMessagesForRun, toWebhookView } from "../src/rules/webhook-outbox.js";
import type { WebhookRecord } from "../src/webhook-domain.js";

const run = (status: RunRecord["status"]) =>
  ({
    id: "r1",
    datasetId: "d1",
    ownerId: "o1",
    status,
    rowDeltas: { new: 2, changed: 1, gone: 0 },
    chargedPages: status === "succeeded" ? 3 : null,
    queuedAt: "2026-11-23T01:00:00.000Z",
    completedAt: "2026-11-23T01:00:05.000Z",
  }) as unknown as RunRecord;

const webhook = (id: string, extra: Partial<WebhookRecord> = {}): WebhookRecord =>
  ({
    id,
    ownerId: "o1",
    url: `https://hooks.example/${id}`,
    events: ["run.finished", "rows.changed"],
    datasetId: null,
    secret: "whsec_x",
    createdAt: "2026-11-23T00:00:00.000Z",
    ...extra,
  }) as WebhookRecord;

const revisions = [{ kind: "created" as const }, { kind: "created" as const }, { kind: "updated" as const }];

describe("webhook outbox rule (what a finished run enqueues)", () => {
  it("an accepted run: run.finished then rows.changed with the feed window, per matching webhook", () => {
    const messages = outboxMessagesForRun(
      run("succeeded"),
      [
        webhook("w1"),
        webhook("w2", { events: ["rows.changed"] }),
        webhook("w3", { datasetId: "d2" as WebhookRecord["datasetId"] }),
        webhook("w4", { ownerId: "o2" as WebhookRecord["ownerId"] }),
      ],
      { lastSequenceBefore: 40, revisions },
    );
    expect(messages.map((m) => [m.webhookId, m.payload.type])).to.deep.equal([
      ["w1", "run.finished"],
      ["w1", "rows.changed"],
      ["w2", "rows.changed"],
    ]);
    expect(messages[1]!.payload.data).to.deep.equal({
      datasetId: "d1",
      after: 40,
      through: 43,
      counts: { created: 2, updated: 1, missing: 0, returned: 0, baseline: 0 },
    });
    expect(messages.every((m) => m.status === "pending" && m.attempts === 0)).to.equal(true);
    expect(messages[0]!.nextAttemptAt).to.equal("2026-11-23T01:00:05.000Z");
  });

  it("gives the same webhook-id when the same run is written again, and different ones per event and webhook", () => {
    const once = outboxMessagesForRun(run("succeeded"), [webhook("w1"), webhook("w2")], {
      lastSequenceBefore: 0,
      revisions,
    });
    const again = outboxMessagesForRun(run("succeeded"), [webhook("w1"), webhook("w2")], {
      lastSequenceBefore: 0,
      revisions,
    });
    expect(again.map((m) => m.id)).to.deep.equal(once.map((m) => m.id));
    expect(new Set(once.map((m) => m.id)).size).to.equal(4);
  });

  it("no rows.changed without revisions; failed and blocked runs send run.finished only; held runs nothing", () => {
    expect(
      outboxMessagesForRun(run("succeeded"), [webhook("w1")], { lastSequenceBefore: 5, revisions: [] }).map(
        (m) => m.payload.type,
      ),
    ).to.deep.equal(["run.finished"]);
    for (const status of ["failed", "blocked"] as const) {
      const messages = outboxMessagesForRun(run(status), [webhook("w1")], null);
      expect(messages.map((m) => m.payload.type)).to.deep.equal(["run.finished"]);
      expect(messages[0]!.payload.data).to.include({ status, creditsCharged: 0 });
    }
    for (const status of ["held", "running", "queued"] as const)
      expect(outboxMessagesForRun(run(status), [webhook("w1")], { lastSequenceBefore: 0, revisions })).to.deep.equal(
        [],
      );
  });

  it("never shows the secret or the owner in the API view", () => {
    expect(toWebhookView(webhook("w1"))).to.deep.equal({
      id: "w1",
      url: "https://hooks.example/w1",
      events: ["run.finished", "rows.changed"],
      datasetId: null,
      createdAt: "2026-11-23T00:00:00.000Z",
    });
  });
});
