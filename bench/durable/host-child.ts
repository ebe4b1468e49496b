// Child process: one Gleaner host, configured by its GLEANER_* environment like a deployment.
//   host-child.ts <serve|api>
// serve: the API and the worker in one process; api: the API only (workers are other processes).
// Prints `READY {"url","key"}` once it listens and has a key; SIGTERM closes it.
import { startHost } from "@gleaner/koa";
import { benchHostConfig } from "../bench-host.js";
import { READY_MARKER } from "./markers.js";

const role = process.argv[2];
if (role !== "serve" && role !== "api") throw new Error("usage: host-child.ts <serve|api>");

const host = await startHost({ config: { ...benchHostConfig }, worker: role === "serve" });
const key = await host.createKey("bench", 10_000_000);
console.log(`${READY_MARKER}${JSON.stringify({ url: host.url, key })}`);
process.once("SIGTERM", () => {
  host.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
