import type { MetricsService, RunKind } from "@gleaner/core";
import client from "prom-client";

const seconds = (ms: number) => ms / 1000;

/** Run durations run from seconds to the run deadline's minutes; HTTP answers from milliseconds. */
const runBuckets = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];
const httpBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/**
 * Gleaner's metrics on prom-client, in a registry of their own (the process's default metrics with
 * them): core tells runs, pages, credits, holds and deliveries through MetricsService; the Koa app
 * observes each request by its route's operationId. Served by metrics/server.ts.
 */
export class PromMetrics implements MetricsService {
  readonly registry = new client.Registry();
  private readonly registers = [this.registry];
  private readonly started = new client.Counter({
    name: "gleaner_runs_started_total",
    help: "Runs a worker took, by kind.",
    labelNames: ["kind"],
    registers: this.registers,
  });
  private readonly finished = new client.Counter({
    name: "gleaner_runs_finished_total",
    help: "Runs that ended, by kind and status (succeeded, failed, blocked, held).",
    labelNames: ["kind", "status"],
    registers: this.registers,
  });
  private readonly duration = new client.Histogram({
    name: "gleaner_run_duration_seconds",
    help: "From a run's start to its end, by kind and status.",
    labelNames: ["kind", "status"],
    buckets: runBuckets,
    registers: this.registers,
  });
  private readonly queueWait = new client.Histogram({
    name: "gleaner_run_queue_wait_seconds",
    help: "From a run's queueing to a worker taking it, by kind.",
    labelNames: ["kind"],
    buckets: runBuckets,
    registers: this.registers,
  });
  private readonly pages = new client.Counter({
    name: "gleaner_pages_read_total",
    help: "Page reads, by outcome (read, not_modified, failed) and a failed read's reason.",
    labelNames: ["outcome", "reason"],
    registers: this.registers,
  });
  private readonly credits = new client.Counter({
    name: "gleaner_credits_charged_total",
    help: "Credits charged for accepted runs (one per distinct checked page).",
    registers: this.registers,
  });
  private readonly held = new client.Counter({
    name: "gleaner_runs_held_total",
    help: "Runs held instead of written, by reason (drift, credits).",
    labelNames: ["reason"],
    registers: this.registers,
  });
  private readonly deliveries = new client.Counter({
    name: "gleaner_webhook_deliveries_total",
    help: "Webhook delivery attempts, by outcome (delivered, rejected, failed).",
    labelNames: ["outcome"],
    registers: this.registers,
  });
  private readonly deliveryTime = new client.Histogram({
    name: "gleaner_webhook_delivery_duration_seconds",
    help: "How long a receiver took to answer a delivery, by outcome.",
    labelNames: ["outcome"],
    buckets: httpBuckets,
    registers: this.registers,
  });
  private readonly requests = new client.Counter({
    name: "gleaner_http_requests_total",
    help: "API requests, by the route's operationId (unmatched for none), method and status.",
    labelNames: ["operation", "method", "status"],
    registers: this.registers,
  });
  private readonly requestTime = new client.Histogram({
    name: "gleaner_http_request_duration_seconds",
    help: "How long the API took to answer, by operationId and method.",
    labelNames: ["operation", "method"],
    buckets: httpBuckets,
    registers: this.registers,
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: "gleaner_" });
  }

  runStarted = (run: { readonly kind: RunKind; readonly queueWaitMs: number }) => {
    this.started.inc({ kind: run.kind });
    this.queueWait.observe({ kind: run.kind }, seconds(run.queueWaitMs));
  };
  runFinished = (run: { readonly kind: RunKind; readonly status: string; readonly durationMs: number | null }) => {
    this.finished.inc({ kind: run.kind, status: run.status });
    if (run.durationMs !== null) this.duration.observe({ kind: run.kind, status: run.status }, seconds(run.durationMs));
  };
  pageRead = (outcome: "read" | "not_modified" | "failed", reason: string | null) => {
    this.pages.inc({ outcome, reason: reason ?? "" });
  };
  creditsCharged = (credits: number) => {
    this.credits.inc(credits);
  };
  runHeld = (reason: "drift" | "credits") => {
    this.held.inc({ reason });
  };
  webhookDelivery = (outcome: "delivered" | "rejected" | "failed", durationMs: number) => {
    this.deliveries.inc({ outcome });
    this.deliveryTime.observe({ outcome }, seconds(durationMs));
  };
  /** One API request, answered with `status` after `durationMs`. */
  httpRequest = (operation: string, method: string, status: number, durationMs: number) => {
    this.requests.inc({ operation, method, status: String(status) });
    this.requestTime.observe({ operation, method }, seconds(durationMs));
  };
}
