import { type LayerOverrides, type RunningHost, startHost } from "@gleaner/koa";
import { pino } from "pino";
import type { AdapterSet } from "./context.js";

/**
 * A host for research cases on the set's store and on a queue of its own name (`set.queue(name)`:
 * hosts consuming one shared durable queue would take each other's jobs), with the research
 * adapters the case gives. Silent unless the case passes a logger.
 */
export const startResearchHost = (
  set: AdapterSet,
  queue: string,
  research: Pick<LayerOverrides, "model" | "search" | "contextTokens">,
  logger = pino({ level: "silent" }),
): Promise<RunningHost> =>
  startHost({
    overrides: {
      store: set.layer(),
      ...(set.queue ? { queue: set.queue(queue) } : {}),
      ...(set.parser ? { parser: set.parser() } : {}),
      ...research,
    },
    config: {
      port: 0,
      host: "127.0.0.1",
      logLevel: logger.level === "silent" ? "silent" : "info",
      allowPrivateTargets: ["127.0.0.1/32"],
      ...set.config,
    },
    logger,
  });
