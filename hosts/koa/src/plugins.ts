import { type Credits, type DocumentParser, QueueUnavailable, RunQueue, type Storage } from "@gleaner/core";
import * as Config from "effect/Config";
import * as ConfigError from "effect/ConfigError";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as Layer from "effect/Layer";
import * as Redacted from "effect/Redacted";
import { readFrom, startupError, wholeNumberIn } from "./config-errors.js";
import { importPeer } from "./optional-peers.js";

/**
 * An adapter as the host knows it: the name a GLEANER_* variable selects it by, the settings it
 * reads (an Effect Config over the GLEANER_* variables; secrets as Config.redacted), and its Layer
 * built from those settings. The adapter's package is imported inside `layer`, when the Layer is
 * built, so a host never loads the drivers of adapters its configuration does not select.
 */
export interface Plugin<Name extends string, Provides, Settings> {
  readonly name: Name;
  readonly config: Config.Config<Settings>;
  readonly layer: (settings: Settings) => Layer.Layer<Provides, unknown>;
}

/** A registry holds plugins of different settings, hence `any` for them. */
export type AnyPlugin<Provides> = Plugin<string, Provides, any>;

const plugin = <const Name extends string, Provides, Settings>(
  definition: Plugin<Name, Provides, Settings>,
): Plugin<Name, Provides, Settings> => definition;

/** The Layer a module exports, imported when the Layer is built. */
const lazily = <Provides>(load: () => Promise<Layer.Layer<Provides, unknown>>): Layer.Layer<Provides, unknown> =>
  Layer.unwrapEffect(Effect.promise(load));

/** The Layer an optional peer's module makes, imported when the Layer is built (or refused naming the package). */
const fromPeer = <Module, Provides>(
  selectedBy: string,
  name: string,
  load: () => Promise<Module>,
  build: (module: Module) => Layer.Layer<Provides, unknown>,
): Layer.Layer<Provides, unknown> => Layer.unwrapEffect(Effect.map(importPeer(selectedBy, name, load), build));

const hasProtocol = (text: string, protocols: ReadonlyArray<string>): boolean => {
  try {
    return protocols.includes(new URL(text).protocol);
  } catch {
    return false;
  }
};

/**
 * A connection URL, a secret (it may carry a password): checked for its scheme before any driver
 * sees it, and never echoed in an error.
 */
const urlOf = (variable: string, example: string) =>
  Config.string(variable).pipe(
    Config.validate({
      message: `must be a URL like ${example}`,
      validation: (text) => hasProtocol(text, [`${new URL(example).protocol}`, ...extraSchemes(example)]),
    }),
    Config.map(Redacted.make),
  );
const extraSchemes = (example: string): ReadonlyArray<string> =>
  example.startsWith("postgres:") ? ["postgresql:"] : example.startsWith("mongodb:") ? ["mongodb+srv:"] : [];
const postgresUrl = () => urlOf("GLEANER_POSTGRES_URL", "postgres://user:password@host:5432/database");
const mongodbUrl = () => urlOf("GLEANER_MONGODB_URL", "mongodb://host1,host2/gleaner?replicaSet=rs0");

/** How long a PostgreSQL statement, and a wait for a connection, may take (the store's defaults when unset). */
const queryTimeoutMs = () => Config.option(wholeNumberIn("GLEANER_POSTGRES_QUERY_TIMEOUT_MS", 100, 3_600_000));
const connectTimeoutMs = () => Config.option(wholeNumberIn("GLEANER_POSTGRES_CONNECT_TIMEOUT_MS", 100, 3_600_000));

/** A store that fails to start names its variable: "GLEANER_POSTGRES_URL: ... ECONNREFUSED ...". */
const namingVariable = <Provides>(variable: string, layer: Layer.Layer<Provides, unknown>) =>
  Layer.catchAll(layer, (cause) => Layer.fail(startupError(variable, cause)));

/** A plugin that reads no variable of its own. */
const withoutSettings = <const Name extends string, Provides>(
  name: Name,
  load: () => Promise<Layer.Layer<Provides, unknown>>,
): Plugin<Name, Provides, object> => plugin({ name, config: Config.succeed({}), layer: () => lazily(load) });

export const storePlugins = [
  withoutSettings("memory", async () => (await import("@gleaner/memory")).MemoryStoreLive),
  plugin({
    name: "postgres",
    config: Config.all({
      url: postgresUrl(),
      queryTimeoutMs: queryTimeoutMs(),
      connectTimeoutMs: connectTimeoutMs(),
    }),
    layer: ({ url, queryTimeoutMs, connectTimeoutMs }) =>
      fromPeer(
        "GLEANER_STORAGE=postgres",
        "@gleaner/postgres",
        () => import("@gleaner/postgres"),
        (postgres) =>
          namingVariable(
            "GLEANER_POSTGRES_URL",
            postgres.PostgresStoreLive({
              url: Redacted.value(url),
              ...(queryTimeoutMs._tag === "Some" ? { queryTimeoutMs: queryTimeoutMs.value } : {}),
              ...(connectTimeoutMs._tag === "Some" ? { connectTimeoutMs: connectTimeoutMs.value } : {}),
            }),
          ),
      ),
  }),
  plugin({
    name: "mongodb",
    config: Config.all({ url: mongodbUrl() }),
    layer: ({ url }) =>
      fromPeer(
        "GLEANER_STORAGE=mongodb",
        "@gleaner/mongodb",
        () => import("@gleaner/mongodb"),
        (mongodb) => namingVariable("GLEANER_MONGODB_URL", mongodb.MongoStoreLive({ url: Redacted.value(url) })),
      ),
  }),
] as const satisfies ReadonlyArray<AnyPlugin<Storage | Credits>>;

const milliseconds = (variable: string) =>
  Config.option(
    Config.integer(variable).pipe(
      Config.validate({ message: "must be a whole number of milliseconds >= 100", validation: (ms) => ms >= 100 }),
    ),
  );

/** Agenda keeps its jobs in the durable store's database (the store's schema on PostgreSQL). */
const agendaConfig = Config.all({
  storage: Config.string("GLEANER_STORAGE").pipe(Config.withDefault("memory")),
  postgresUrl: Config.option(postgresUrl()),
  mongodbUrl: Config.option(mongodbUrl()),
  lockLifetimeMs: milliseconds("GLEANER_AGENDA_LOCK_LIFETIME_MS"),
  processEvery: milliseconds("GLEANER_AGENDA_PROCESS_EVERY_MS"),
}).pipe(
  Config.mapOrFail(({ storage, postgresUrl, mongodbUrl, lockLifetimeMs, processEvery }) => {
    const tuning = {
      ...(lockLifetimeMs._tag === "Some" ? { lockLifetimeMs: lockLifetimeMs.value } : {}),
      ...(processEvery._tag === "Some" ? { processEvery: processEvery.value } : {}),
    };
    const backend: "postgres" | "mongodb" | null =
      storage === "postgres" ? "postgres" : storage === "mongodb" ? "mongodb" : null;
    if (!backend) {
      return Either.left(
        ConfigError.InvalidData(["GLEANER_STORAGE"], "GLEANER_QUEUE=agenda needs a durable store: postgres or mongodb"),
      );
    }
    const url = backend === "postgres" ? postgresUrl : mongodbUrl;
    const variable = backend === "postgres" ? "GLEANER_POSTGRES_URL" : "GLEANER_MONGODB_URL";
    if (url._tag === "None") {
      return Either.left(
        ConfigError.MissingData([variable], `GLEANER_QUEUE=agenda with GLEANER_STORAGE=${backend} needs it`),
      );
    }
    return Either.right({ backend, url: url.value, variable, tuning });
  }),
);

/**
 * A queue whose database refuses a job says which variable points at that database, so an operator
 * reading the 503 (or the log) knows where to look: "... (the queue's database, GLEANER_POSTGRES_URL)".
 */
export const queueNamingVariable = (variable: string, layer: Layer.Layer<RunQueue, unknown>) =>
  Layer.effect(
    RunQueue,
    Effect.map(RunQueue, (queue) => ({
      ...queue,
      enqueue: (job: Parameters<typeof queue.enqueue>[0]) =>
        queue
          .enqueue(job)
          .pipe(
            Effect.mapError(
              (error) => new QueueUnavailable({ message: `${error.message} (the queue's database: ${variable})` }),
            ),
          ),
    })),
  ).pipe(Layer.provide(layer));

export const queuePlugins = [
  withoutSettings("memory", async () => (await import("@gleaner/memory")).MemoryRunQueueLive()),
  plugin({
    name: "agenda",
    config: agendaConfig,
    layer: ({ backend, url, variable, tuning }) =>
      fromPeer(
        "GLEANER_QUEUE=agenda",
        "@gleaner/agenda",
        () => import("@gleaner/agenda"),
        (agenda) =>
          namingVariable(
            variable,
            queueNamingVariable(variable, agenda.AgendaRunQueueLive({ backend, url: Redacted.value(url), ...tuning })),
          ),
      ),
  }),
] as const satisfies ReadonlyArray<AnyPlugin<RunQueue>>;

export const parserPlugins = [
  withoutSettings("htmlparser2", async () => (await import("@gleaner/htmlparser2")).Htmlparser2ParserLive),
  plugin({
    name: "jsdom",
    config: Config.succeed({}),
    layer: () =>
      fromPeer(
        "GLEANER_PARSER=jsdom",
        "@gleaner/jsdom",
        () => import("@gleaner/jsdom"),
        (jsdom) => jsdom.JsdomParserLive,
      ),
  }),
] as const satisfies ReadonlyArray<AnyPlugin<DocumentParser>>;

export type StorePlugin = (typeof storePlugins)[number];
export type QueuePlugin = (typeof queuePlugins)[number];
export type ParserPlugin = (typeof parserPlugins)[number];
export type StoreName = StorePlugin["name"];
export type QueueName = QueuePlugin["name"];
export type ParserName = ParserPlugin["name"];

/** The registered names, for the selection variables (GLEANER_STORAGE and friends). */
export const namesOf = <P extends { readonly name: string }>(plugins: ReadonlyArray<P>): [P["name"], ...P["name"][]] =>
  plugins.map((p) => p.name) as [P["name"], ...P["name"][]];

/** The selected plugin's Layer, its settings read from `variables` when the Layer is built. */
export const pluginLayer = <Provides>(
  plugin: AnyPlugin<Provides>,
  variables: Readonly<Record<string, string>>,
): Layer.Layer<Provides, unknown> =>
  Layer.unwrapEffect(Effect.try({ try: () => plugin.layer(readFrom(plugin.config, variables)), catch: (e) => e }));

export const select = <P extends { readonly name: string }>(
  plugins: ReadonlyArray<P>,
  name: string,
  variable: string,
): P => {
  const found = plugins.find((p) => p.name === name);
  if (!found) {
    const known = plugins.map((p) => p.name).join(", ");
    throw new Error(`${variable}=${name} is not available in this build (available: ${known}).`);
  }
  return found;
};
