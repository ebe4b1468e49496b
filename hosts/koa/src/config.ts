import { Either, Schema } from "effect";

/** Host configuration, read from the environment (every variable is documented in README.md). */
const Env = Schema.Struct({
  GLEANER_PORT: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 65535)), {
    default: () => 8080,
  }),
  GLEANER_HOST: Schema.optionalWith(Schema.String, { default: () => "0.0.0.0" }),
  GLEANER_STORAGE: Schema.optionalWith(Schema.Literal("memory", "postgres", "mongodb"), {
    default: () => "memory" as const,
  }),
  GLEANER_QUEUE: Schema.optionalWith(Schema.Literal("memory", "agenda"), { default: () => "memory" as const }),
  GLEANER_PARSER: Schema.optionalWith(Schema.Literal("htmlparser2", "jsdom"), {
    default: () => "htmlparser2" as const,
  }),
  GLEANER_POSTGRES_URL: Schema.optional(Schema.String),
  GLEANER_MONGODB_URL: Schema.optional(Schema.String),
  GLEANER_BROWSER_PATH: Schema.optionalWith(Schema.String, { default: () => "/usr/bin/chromium" }),
  GLEANER_PROXY_URLS: Schema.optionalWith(Schema.String, { default: () => "" }),
  GLEANER_ALLOW_PRIVATE_TARGETS: Schema.optionalWith(Schema.String, { default: () => "" }),
  GLEANER_WORKER_CONCURRENCY: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 64)), {
    default: () => 2,
  }),
  GLEANER_BODY_LIMIT_BYTES: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1024, 64 * 1024 * 1024)),
    { default: () => 1024 * 1024 },
  ),
  GLEANER_LOG_LEVEL: Schema.optionalWith(Schema.Literal("fatal", "error", "warn", "info", "debug", "trace", "silent"), {
    default: () => "info" as const,
  }),
});

/** Reliability and fairness (docs/decisions/0016-reliability.md): run deadline and per-owner limits. */
const count = (max: number, fallback: number) =>
  Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, max)), { default: () => fallback });
const ReliabilityEnv = Schema.Struct({
  GLEANER_RUN_DEADLINE_MS: count(24 * 3600_000, 5 * 60_000),
  GLEANER_OWNER_MAX_ACTIVE_RUNS: count(1_000_000, 10),
  GLEANER_OWNER_MAX_RUNS_PER_HOUR: count(1_000_000, 120),
  GLEANER_OWNER_MAX_DATASETS: count(1_000_000, 200),
});

export interface HostConfig {
  readonly port: number;
  readonly host: string;
  readonly storage: "memory" | "postgres" | "mongodb";
  readonly queue: "memory" | "agenda";
  readonly parser: "htmlparser2" | "jsdom";
  readonly postgresUrl: string | undefined;
  readonly mongodbUrl: string | undefined;
  readonly browserPath: string;
  readonly proxyUrls: ReadonlyArray<string>;
  readonly allowPrivateTargets: ReadonlyArray<string>;
  readonly workerConcurrency: number;
  readonly bodyLimitBytes: number;
  readonly logLevel: string;
  readonly runDeadlineMs: number;
  readonly ownerLimits: {
    readonly maxActiveRuns: number;
    readonly maxRunsPerHour: number;
    readonly maxDatasets: number;
  };
}

const list = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** Reads the configuration, failing with one message that names every bad variable. */
export const readConfig = (env: Record<string, string | undefined> = process.env): HostConfig => {
  const known = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith("GLEANER_") && v !== ""));
  const decoded = Schema.decodeUnknownEither(Schema.extend(Env, ReliabilityEnv), { errors: "all" })(known);
  if (Either.isLeft(decoded)) {
    throw new Error(`Invalid configuration: ${decoded.left.message}`);
  }
  const e = decoded.right;
  return {
    port: e.GLEANER_PORT,
    host: e.GLEANER_HOST,
    storage: e.GLEANER_STORAGE,
    queue: e.GLEANER_QUEUE,
    parser: e.GLEANER_PARSER,
    postgresUrl: e.GLEANER_POSTGRES_URL,
    mongodbUrl: e.GLEANER_MONGODB_URL,
    browserPath: e.GLEANER_BROWSER_PATH,
    proxyUrls: list(e.GLEANER_PROXY_URLS),
    allowPrivateTargets: list(e.GLEANER_ALLOW_PRIVATE_TARGETS),
    workerConcurrency: e.GLEANER_WORKER_CONCURRENCY,
    bodyLimitBytes: e.GLEANER_BODY_LIMIT_BYTES,
    logLevel: e.GLEANER_LOG_LEVEL,
    runDeadlineMs: e.GLEANER_RUN_DEADLINE_MS,
    ownerLimits: {
      maxActiveRuns: e.GLEANER_OWNER_MAX_ACTIVE_RUNS,
      maxRunsPerHour: e.GLEANER_OWNER_MAX_RUNS_PER_HOUR,
      maxDatasets: e.GLEANER_OWNER_MAX_DATASETS,
    },
  };
};
