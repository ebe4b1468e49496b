/**
 * Export memory benchmark (issue 18): exports of a 100 000-row dataset must stream, holding a page
 * of rows (and, for Parquet, one row group) at a time, never the dataset.
 *
 * Starts the rows-api bench server (the Koa host on the memory store, seeded with 100 000 rows
 * through the Storage port) in a child process, then for each export resets the child's peak RSS
 * (Linux /proc/<pid>/clear_refs, value 5) and reads it back (VmHWM) after the whole answer was
 * received and discarded here. Prints, per export, the bytes sent and the peak RSS above the
 * seeded baseline. The memory store keeps all rows in the same process, so the baseline holds
 * the dataset itself; what matters is that the growth stays far below the export's size.
 *
 *   npm run bench:export-rss -w @gleaner/bench   (Linux only; not part of npm test)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const kib = (field: "VmRSS" | "VmHWM", pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? Number.NaN);
};
const mib = (k: number) => `${(k / 1024).toFixed(1)} MiB`;

const start = (): Promise<{ child: ChildProcess; ready: { url: string; key: string; datasetId: string } }> =>
  new Promise((resolve, reject) => {
    const server = new URL("../rows-api/server.ts", import.meta.url).pathname;
    const child = spawn(process.execPath, ["--import", "tsx", server, "gleaner"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    process.on("exit", () => child.kill("SIGKILL"));
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve({ child, ready: JSON.parse(line) }));
  });

const main = async () => {
  console.log("Seeding 100 000 rows (memory store)…");
  const { child, ready } = await start();
  const pid = child.pid!;
  const headers = { authorization: `Bearer ${ready.key}` };
  const exportUrl = `${ready.url}/v1/datasets/${ready.datasetId}/export`;
  const last = (
    (await await fetch(`${ready.url}/v1/datasets/${ready.datasetId}/changes?limit=1`, { headers }).then((r) =>
      r.json(),
    )) as { through: number }
  ).through;
  // One warm-up export so code loading and JIT are not counted as the export's memory.
  await (await fetch(`${exportUrl}?format=jsonl`, { headers })).arrayBuffer();
  const baseline = kib("VmRSS", pid);
  console.log(`baseline RSS after seeding: ${mib(baseline)}\n`);
  console.log("export                    bytes sent    peak RSS above baseline");
  for (const query of ["format=csv", "format=jsonl", "format=parquet", `format=csv&asOf=${last}`]) {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const response = await fetch(`${exportUrl}?${query}`, { headers });
    if (response.status !== 200) throw new Error(`${query}: ${response.status} ${await response.text()}`);
    let bytes = 0;
    const reader = response.body!.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.byteLength;
    const peak = kib("VmHWM", pid);
    console.log(
      `${query.padEnd(25)} ${mib(bytes / 1024).padStart(10)}    ${mib(Math.max(0, peak - baseline)).padStart(10)}`,
    );
  }
  child.removeAllListeners("exit");
  child.kill("SIGTERM");
};

await main();
