import { MemoryStoreLive } from "@gleaner/memory";
import { pino } from "pino";
import { type RunningHost, startHost } from "@gleaner/koa";

/** A host on the memory store, without a worker or logs: for tests that put its route table on an app of their own. */
export const startQuietHost = (): Promise<RunningHost> =>
  startHost({
    overrides: { store: MemoryStoreLive },
    worker: false,
    config: { port: 0, host: "127.0.0.1", logLevel: "silent" },
    logger: pino({ level: "silent" }),
  });
