import type { Credits, DocumentParser, RunQueue, Storage } from "@gleaner/core";
import { Htmlparser2ParserLive } from "@gleaner/htmlparser2";
import { JsdomParserLive } from "@gleaner/jsdom";
import { AgendaRunQueueLive, agendaTuningFromEnv } from "@gleaner/agenda";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { MongoStoreLive } from "@gleaner/mongodb";
import { PostgresStoreLive } from "@gleaner/postgres";
import type { Layer } from "effect";
import type { HostConfig } from "./config.js";

/**
 * Adapter plugins: a name the configuration selects, and a function from the configuration to
 * the adapter's Layer. The host knows adapters only through these registries.
 */
export interface Plugin<Name extends string, Provides> {
  readonly name: Name;
  readonly layer: (config: HostConfig) => Layer.Layer<Provides, unknown>;
}

export type StorePlugin = Plugin<HostConfig["storage"], Storage | Credits>;
export type QueuePlugin = Plugin<HostConfig["queue"], RunQueue>;
export type ParserPlugin = Plugin<HostConfig["parser"], DocumentParser>;

export const storePlugins: StorePlugin[] = [
  { name: "memory", layer: () => MemoryStoreLive },
  {
    name: "postgres",
    layer: (config) => {
      if (!config.postgresUrl) {
        throw new Error("GLEANER_STORAGE=postgres needs GLEANER_POSTGRES_URL (postgres://user@host:5432/database).");
      }
      return PostgresStoreLive({ url: config.postgresUrl });
    },
  },
  {
    name: "mongodb",
    layer: (config) => {
      if (!config.mongodbUrl) {
        throw new Error("GLEANER_STORAGE=mongodb needs GLEANER_MONGODB_URL (a replica set's connection string).");
      }
      return MongoStoreLive({ url: config.mongodbUrl });
    },
  },
];
export const queuePlugins: QueuePlugin[] = [
  { name: "memory", layer: () => MemoryRunQueueLive() },
  // Agenda keeps its jobs in the configured durable store's database (the store's schema on PostgreSQL).
  {
    name: "agenda",
    layer: (config) => {
      const tuning = agendaTuningFromEnv(process.env);
      if (config.storage === "postgres") {
        if (!config.postgresUrl)
          throw new Error("GLEANER_QUEUE=agenda with GLEANER_STORAGE=postgres needs GLEANER_POSTGRES_URL.");
        return AgendaRunQueueLive({ backend: "postgres", url: config.postgresUrl, ...tuning });
      }
      if (config.storage === "mongodb") {
        if (!config.mongodbUrl)
          throw new Error("GLEANER_QUEUE=agenda with GLEANER_STORAGE=mongodb needs GLEANER_MONGODB_URL.");
        return AgendaRunQueueLive({ backend: "mongodb", url: config.mongodbUrl, ...tuning });
      }
      throw new Error("GLEANER_QUEUE=agenda needs a durable store: set GLEANER_STORAGE=postgres (or mongodb).");
    },
  },
];
export const parserPlugins: ParserPlugin[] = [
  { name: "htmlparser2", layer: () => Htmlparser2ParserLive },
  { name: "jsdom", layer: () => JsdomParserLive },
];

export const select = <P extends { readonly name: string }>(
  plugins: ReadonlyArray<P>,
  name: string,
  variable: string,
): P => {
  const plugin = plugins.find((p) => p.name === name);
  if (!plugin) {
    const known = plugins.map((p) => p.name).join(", ");
    throw new Error(`${variable}=${name} is not available in this build (available: ${known}).`);
  }
  return plugin;
};
