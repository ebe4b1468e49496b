import type { ConnectionPoolState, MetricsService, RunKind } from "@gleaner/core";
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
  private readonly counter = (name: string, help: string, labelNames: string[] = []) =>
    new client.Counter({ name, help, labelNames, registers: [this.registry] });
  private readonly histogram = (name: string, help: string, labelNames: string[], buckets: number[]) =>
    new client.Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  private readonly started = this.counter("gleaner_runs_started_total", "Runs a worker took, by kind.", ["kind"]);
  private readonly finished = this.counter(
    "gleaner_runs_finished_total",
    "Runs that ended, by kind and status (succeeded, failed, blocked, held).",
    ["kind", "status"],
  );
  private readonly duration = this.histogram(
    "gleaner_run_duration_seconds",
    "From a run's start to its end, by kind and status.",
    ["kind", "status"],
    runBuckets,
  );
  private readonly queueWait = this.histogram(
    "gleaner_run_queue_wait_seconds",
    "From a run's queueing to a worker taking it, by kind.",
    ["kind"],
    runBuckets,
  );
  private readonly pages = this.counter(
    "gleaner_pages_read_total",
    "Page reads, by outcome (read, not_modified, failed) and a failed read's reason.",
    ["outcome", "reason"],
  );
  private readonly credits = this.counter(
    "gleaner_credits_charged_total",
    "Credits charged for accepted runs (one per distinct checked page).",
  );
  private readonly held = this.counter(
    "gleaner_runs_held_total",
    "Runs held instead of written, by reason (drift, credits).",
    ["reason"],
  );
  private readonly deliveries = this.counter(
    "gleaner_webhook_deliveries_total",
    "Webhook delivery attempts, by outcome (delivered, rejected, failed).",
    ["outcome"],
  );
  private readonly deliveryTime = this.histogram(
    "gleaner_webhook_delivery_duration_seconds",
    "How long a receiver took to answer a delivery, by outcome.",
    ["outcome"],
    httpBuckets,
  );
  private readonly requests = this.counter(
    "gleaner_http_requests_total",
    "API requests, by the route's operationId (unmatched for none), method and status.",
    ["operation", "method", "status"],
  );
  private readonly requestTime = this.histogram(
    "gleaner_http_request_duration_seconds",
    "How long the API took to answer, by operationId and method.",
    ["operation", "method"],
    httpBuckets,
  );

  /** Reads the queue (Storage.queuedRuns) at each scrape; set once the process's services are up. */
  queue: (() => Promise<{ readonly count: number; readonly oldestQueuedAt: string | null } | null>) | null = null;
  private readonly waiting = new client.Gauge({
    name: "gleaner_queue_waiting_runs",
    help: "Runs queued and not yet taken by a worker, across owners (read at each scrape).",
    registers: [this.registry],
    collect: async () => {
      const queue = await this.readQueue();
      if (queue) this.waiting.set(queue.count);
    },
  });
  private readonly oldest = new client.Gauge({
    name: "gleaner_queue_oldest_waiting_seconds",
    help: "How long the oldest queued run has waited (0 when none waits; read at each scrape).",
    registers: [this.registry],
    collect: async () => {
      const queue = await this.readQueue();
      if (queue) {
        this.oldest.set(queue.oldestQueuedAt ? Math.max(0, (Date.now() - Date.parse(queue.oldestQueuedAt)) / 1000) : 0);
      }
    },
  });
  /**
   * Serves the store's connection pool (Storage.connectionPool), read at each scrape. Only a store
   * with a pool calls it, so a memory host exports no database series at all.
   */
  watchPool = (read: () => ConnectionPoolState) => {
    const connections = new client.Gauge({
      name: "gleaner_db_connections",
      help: "The durable store's connections by state: in_use (or being opened), idle, and waiting (requests waiting for one).",
      labelNames: ["state"],
      registers: [this.registry],
      collect: () => {
        const pool = read();
        connections.set({ state: "in_use" }, pool.open - pool.idle);
        connections.set({ state: "idle" }, pool.idle);
        connections.set({ state: "waiting" }, pool.waiting);
      },
    });
    let seen = 0;
    const errors = new client.Counter({
      name: "gleaner_db_errors_total",
      help: "Connections the durable store lost, and statements or connections that failed for the database being out of reach.",
      registers: [this.registry],
      collect: () => {
        const now = read().errors;
        if (now > seen) errors.inc(now - seen);
        seen = Math.max(seen, now);
      },
    });
  };

  /** One read for both gauges when a scrape asks them together. */
  private pending: Promise<{ readonly count: number; readonly oldestQueuedAt: string | null } | null> | null = null;
  private readonly readQueue = () => {
    this.pending ??= (this.queue?.() ?? Promise.resolve(null))
      .catch(() => null)
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  };

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
