import { expect } from "chai";
import type { RunRecord } from "../src/run-domain.js";
import {
  isDelivered,
  isRetryable,
  nextRetryDelayMs,
  runFinishedPayload,
  webhookRetry,
} from "../src/rules/webhook-delivery.js";

const answered = (status: number) => ({ kind: "answered" as const, status, durationMs: 5 });
const failed = (reason: "network" | "timeout" | "unsafe_target") => ({
  kind: "failed" as const,
  reason,
  detail: "",
  durationMs: 5,
});

describe("webhook delivery rules", () => {
  it("retries network errors, timeouts, 5xx and 429, and nothing else", () => {
    for (const status of [500, 502, 503, 599, 429])
      expect(isRetryable(answered(status)), String(status)).to.equal(true);
    for (const status of [200, 204, 301, 302, 400, 401, 404, 410, 422])
      expect(isRetryable(answered(status)), String(status)).to.equal(false);
    expect(isRetryable(failed("network"))).to.equal(true);
    expect(isRetryable(failed("timeout"))).to.equal(true);
    expect(isRetryable(failed("unsafe_target"))).to.equal(false);
    expect(isDelivered(answered(204))).to.equal(true);
    expect(isDelivered(answered(302))).to.equal(false);
  });

  it("backs off exponentially with jitter over about a day, then stops", () => {
    const total = (random: () => number) => {
      let sum = 0;
      for (let attempt = 1; attempt < webhookRetry.maxAttempts; attempt++) sum += nextRetryDelayMs(attempt, random)!;
      return sum;
    };
    const hours = (ms: number) => ms / 3_600_000;
    expect(hours(total(() => 0))).to.be.within(12, 24);
    expect(hours(total(() => 1))).to.be.within(24, 36);
    expect(nextRetryDelayMs(1, () => 0)).to.equal(15_000);
    expect(nextRetryDelayMs(1, () => 1)).to.equal(30_000);
    expect(nextRetryDelayMs(2, () => 0)).to.equal(30_000);
    expect(nextRetryDelayMs(40, () => 1)).to.equal(null);
    expect(nextRetryDelayMs(webhookRetry.maxAttempts - 1, () => 1)).to.equal(webhookRetry.capMs);
  });

  it("describes a finished run without row data", () => {
    const run = {
      id: "r1",
      datasetId: "d1",
      status: "succeeded",
      rowDeltas: { new: 2, changed: 0, gone: 1 },
      chargedPages: 3,
    } as unknown as RunRecord;
    expect(runFinishedPayload(run, "2026-11-22T21:00:00.000Z")).to.deep.equal({
      type: "run.finished",
      timestamp: "2026-11-22T21:00:00.000Z",
      data: {
        runId: "r1",
        datasetId: "d1",
        status: "succeeded",
        rowDeltas: { new: 2, changed: 0, gone: 1 },
        creditsCharged: 3,
      },
    });
  });
});
