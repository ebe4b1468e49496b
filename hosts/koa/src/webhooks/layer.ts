import { lookup } from "node:dns/promises";
import {
  type MetricsService,
  meteredWebhookSender,
  parseAllowList,
  webhookRetry,
  WebhookSender,
  WebhookWorkerLive,
} from "@gleaner/core";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { HostConfig } from "../config.js";
import { makeWebhookSender } from "./sender.js";

/** The signed, SSRF-guarded sender, closed with the layer. Receivers' answers are read up to 64 KiB. */
export const WebhookSenderLive = (config: HostConfig): Layer.Layer<WebhookSender> =>
  Layer.scoped(
    WebhookSender,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() =>
          makeWebhookSender({
            allow: parseAllowList(config.allowPrivateTargets),
            lookup: (hostname) => lookup(hostname, { all: true }),
            timeoutMs: config.webhooks.timeoutMs,
            maxResponseBytes: 64 * 1024,
          }),
        ),
        (sender) => Effect.promise(() => sender.close()),
      ),
      (sender) => ({
        send: (request) => Effect.promise((stop) => sender.send(request.url, request.secret, request, stop)),
      }),
    ),
  );

/**
 * The webhook worker of a `serve` or `worker` process. A taken message is reserved for two
 * attempt timeouts and a margin: long enough that a live worker always settles it first.
 */
export const webhookWorker = (config: HostConfig, metrics: MetricsService | null = null) =>
  WebhookWorkerLive({
    concurrency: config.workerConcurrency,
    pollMs: config.webhooks.pollMs,
    leaseMs: 2 * config.webhooks.timeoutMs + 5_000,
    retry: { ...webhookRetry, baseMs: config.webhooks.retryBaseMs },
  }).pipe(
    Layer.provide(
      metrics
        ? Layer.map(WebhookSenderLive(config), (context) =>
            Context.add(context, WebhookSender, meteredWebhookSender(Context.get(context, WebhookSender), metrics)),
          )
        : WebhookSenderLive(config),
    ),
  );
