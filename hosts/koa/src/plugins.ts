import type { Credits, Storage } from "@gleaner/core";
import { MemoryStoreLive } from "@gleaner/memory";
import type { Layer } from "effect";
import type { HostConfig } from "./config.js";

/**
 * An adapter plugin: a name the configuration selects, and a function from the configuration to
 * the adapter's Layer. The host knows adapters only through this registry.
 */
export interface StorePlugin {
  readonly name: HostConfig["storage"];
  readonly layer: (config: HostConfig) => Layer.Layer<Storage | Credits, unknown>;
}

export const storePlugins: ReadonlyArray<StorePlugin> = [{ name: "memory", layer: () => MemoryStoreLive }];

export const selectStore = (config: HostConfig, plugins: ReadonlyArray<StorePlugin> = storePlugins): StorePlugin => {
  const plugin = plugins.find((p) => p.name === config.storage);
  if (!plugin) {
    const known = plugins.map((p) => p.name).join(", ");
    throw new Error(`GLEANER_STORAGE=${config.storage} is not available in this build (available: ${known}).`);
  }
  return plugin;
};
