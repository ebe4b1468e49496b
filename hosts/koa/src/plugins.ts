import type { Credits, DocumentParser, RunQueue, Storage } from "@gleaner/core";
import { Htmlparser2ParserLive } from "@gleaner/htmlparser2";
import { JsdomParserLive } from "@gleaner/jsdom";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
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

export const storePlugins: StorePlugin[] = [{ name: "memory", layer: () => MemoryStoreLive }];
export const queuePlugins: QueuePlugin[] = [{ name: "memory", layer: () => MemoryRunQueueLive() }];
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
