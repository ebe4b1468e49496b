import * as Config from "effect/Config";
import * as Option from "effect/Option";
import { readTracing, type TracingConfig } from "./tracing.js";
import { defaultMaxApiKeys, defaultMaxWebhooks } from "@gleaner/core";
import { ConfigurationError, gleanerVariables, readFrom, wholeNumberIn } from "./config-errors.js";
import { researchEnv } from "./research-plugins.js";
import {
  namesOf,
  type ParserName,
  parserPlugins,
  type QueueName,
  queuePlugins,
  type StoreName,
  select,
  storePlugins,
} from "./plugins.js";

/**
 * Host configuration, read from the GLEANER_* environment variables (every one is documented in
 * docs/guides/running-and-configuring.md). The host's own settings and the reading settings every fetcher takes live here; the
 * selected adapters' settings are their plugins' (plugins.ts), read from `variables`.
 */
export interface HostConfig {
  readonly port: number;
  readonly host: string;
  readonly storage: StoreName;
  readonly queue: QueueName;
  readonly parser: ParserName;
  readonly browserPath: string;
  /** The render budget of one browser read (navigation, load, render wait, reading the DOM). */
  readonly browserReadTimeoutMs: number;
  /** Resident memory one Chromium renderer may use before it is killed (`limit_exceeded`). */
  readonly browserMemoryMb: number;
  readonly proxyUrls: ReadonlyArray<string>;
  readonly allowPrivateTargets: ReadonlyArray<string>;
  readonly workerConcurrency: number;
  readonly bodyLimitBytes: number;
  readonly logLevel: string;
  /** The longest one run may take, read to acceptance (docs/decisions/0016-reliability.md). */
  readonly runDeadlineMs: number;
  /** Webhook deliveries (docs/decisions/0018-data-out.md): one attempt's timeout, the outbox poll, the first retry's delay. */
  readonly webhooks: { readonly timeoutMs: number; readonly pollMs: number; readonly retryBaseMs: number };
  /** Per-owner limits, answered with 429 and Retry-After. */
  readonly ownerLimits: {
    readonly maxActiveRuns: number;
    readonly maxRunsPerHour: number;
    readonly maxDatasets: number;
    /** Previews and suggestions an owner may ask for in a minute (counted in each process). */
    readonly maxPreviewsPerMinute?: number;
    /** Webhooks and API keys an owner may hold at once (absent: core's defaults). */
    readonly maxWebhooks?: number;
    readonly maxApiKeys?: number;
  };
  /**
   * The drift rule (docs/decisions/0040-drift-holds.md): on by default; shares and the fill drop in
   * percent. Absent: core's defaults.
   */
  readonly drift?: {
    readonly enabled: boolean;
    readonly minRows: number;
    readonly minRecordsPercent: number;
    readonly gonePercent: number;
    readonly fillDropPoints: number;
  };
  /**
   * Prometheus metrics at `/metrics` on a listener of their own: GLEANER_METRICS_PORT (unset: none)
   * and GLEANER_METRICS_HOST (default 127.0.0.1). Never on the API's port.
   */
  readonly metrics?: { readonly host: string; readonly port: number };
  /** OTLP trace export, from OpenTelemetry's standard variables (tracing.ts); absent: no tracing. */
  readonly tracing?: TracingConfig;
  /** Days a finished run's record (trace, facts, artifacts) is kept: GLEANER_RETENTION_DAYS (default 30). */
  readonly retentionDays?: number;
  /** The GLEANER_* variables this configuration was read from; the plugins read theirs here. */
  readonly variables: Readonly<Record<string, string>>;
}

const list = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

const wholeNumber = (variable: string, min: number, max: number, fallback: number) =>
  wholeNumberIn(variable, min, max).pipe(Config.withDefault(fallback));

const listOf = (variable: string) => Config.string(variable).pipe(Config.withDefault(""), Config.map(list));

const hostSettings = Config.all({
  port: wholeNumber("GLEANER_PORT", 0, 65535, 8080),
  host: Config.string("GLEANER_HOST").pipe(Config.withDefault("0.0.0.0")),
  storage: Config.literal(...namesOf(storePlugins))("GLEANER_STORAGE").pipe(Config.withDefault("memory" as const)),
  queue: Config.literal(...namesOf(queuePlugins))("GLEANER_QUEUE").pipe(Config.withDefault("memory" as const)),
  parser: Config.literal(...namesOf(parserPlugins))("GLEANER_PARSER").pipe(Config.withDefault("htmlparser2" as const)),
  browserPath: Config.string("GLEANER_BROWSER_PATH").pipe(Config.withDefault("/usr/bin/chromium")),
  browserReadTimeoutMs: wholeNumber("GLEANER_BROWSER_READ_TIMEOUT_MS", 1_000, 10 * 60_000, 30_000),
  browserMemoryMb: wholeNumber("GLEANER_BROWSER_MEMORY_MB", 64, 64 * 1024, 1024),
  proxyUrls: listOf("GLEANER_PROXY_URLS"),
  allowPrivateTargets: listOf("GLEANER_ALLOW_PRIVATE_TARGETS"),
  workerConcurrency: wholeNumber("GLEANER_WORKER_CONCURRENCY", 1, 64, 2),
  bodyLimitBytes: wholeNumber("GLEANER_BODY_LIMIT_BYTES", 1024, 64 * 1024 * 1024, 1024 * 1024),
  logLevel: Config.literal(
    "fatal",
    "error",
    "warn",
    "info",
    "debug",
    "trace",
    "silent",
  )("GLEANER_LOG_LEVEL").pipe(Config.withDefault("info" as const)),
  runDeadlineMs: wholeNumber("GLEANER_RUN_DEADLINE_MS", 1, 24 * 3600_000, 5 * 60_000),
  webhooks: Config.all({
    timeoutMs: wholeNumber("GLEANER_WEBHOOK_TIMEOUT_MS", 100, 60_000, 10_000),
    pollMs: wholeNumber("GLEANER_WEBHOOK_POLL_MS", 100, 3_600_000, 30_000),
    retryBaseMs: wholeNumber("GLEANER_WEBHOOK_RETRY_BASE_MS", 1, 3_600_000, 30_000),
  }),
  ownerLimits: Config.all({
    maxActiveRuns: wholeNumber("GLEANER_OWNER_MAX_ACTIVE_RUNS", 1, 1_000_000, 10),
    maxRunsPerHour: wholeNumber("GLEANER_OWNER_MAX_RUNS_PER_HOUR", 1, 1_000_000, 120),
    maxDatasets: wholeNumber("GLEANER_OWNER_MAX_DATASETS", 1, 1_000_000, 200),
    maxPreviewsPerMinute: wholeNumber("GLEANER_OWNER_MAX_PREVIEWS_PER_MINUTE", 1, 1_000_000, 30),
    maxWebhooks: wholeNumber("GLEANER_OWNER_MAX_WEBHOOKS", 1, 1_000_000, defaultMaxWebhooks),
    maxApiKeys: wholeNumber("GLEANER_OWNER_MAX_KEYS", 1, 1_000_000, defaultMaxApiKeys),
  }),
  retentionDays: wholeNumber("GLEANER_RETENTION_DAYS", 1, 36_500, 30),
  metrics: Config.option(wholeNumberIn("GLEANER_METRICS_PORT", 0, 65_535)).pipe(
    Config.zipWith(Config.string("GLEANER_METRICS_HOST").pipe(Config.withDefault("127.0.0.1")), (port, host) =>
      Option.match(port, { onNone: () => undefined, onSome: (p) => ({ host, port: p }) }),
    ),
  ),
  drift: Config.all({
    enabled: Config.literal(
      "on",
      "off",
    )("GLEANER_DRIFT").pipe(
      Config.withDefault("on" as const),
      Config.map((value) => value === "on"),
    ),
    minRows: wholeNumber("GLEANER_DRIFT_MIN_ROWS", 1, 1_000_000_000, 10),
    minRecordsPercent: wholeNumber("GLEANER_DRIFT_MIN_RECORDS_PERCENT", 1, 100, 50),
    gonePercent: wholeNumber("GLEANER_DRIFT_GONE_PERCENT", 1, 100, 50),
    fillDropPoints: wholeNumber("GLEANER_DRIFT_FILL_DROP_POINTS", 1, 100, 50),
  }),
});

/**
 * Reads the configuration: the host's settings, then the settings of each selected plugin, so a
 * missing or malformed variable stops the start with one line per variable naming it.
 */
export const readConfig = (env: Record<string, string | undefined> = process.env): HostConfig => {
  const variables = gleanerVariables(env);
  const settings = readFrom(hostSettings, variables);
  const selected = [
    select(storePlugins, settings.storage, "GLEANER_STORAGE").config,
    select(queuePlugins, settings.queue, "GLEANER_QUEUE").config,
    select(parserPlugins, settings.parser, "GLEANER_PARSER").config,
  ];
  // Research settings too (GLEANER_MODEL_CONTEXT_TOKENS), so a bad one stops the start naming it.
  readFrom(Config.all([...selected, researchEnv]), variables);
  const tracing = readTracing(env);
  return { ...settings, variables, ...(tracing ? { tracing } : {}) };
};

export { ConfigurationError };
