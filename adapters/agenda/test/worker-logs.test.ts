import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { whenPostgresReachable } from "./support.js";

const cli = join(dirname(fileURLToPath(import.meta.url)), "../../../hosts/koa/bin/gleaner.js");

/** Runs `gleaner worker` for `ms` (or until `until` sees a line) and answers what it wrote to stdout. */
const workerOutput = (
  url: string,
  level: string,
  ms: number,
  until?: (line: string) => boolean,
  env: Record<string, string> = {},
  whileRunning?: () => Promise<void>,
) =>
  new Promise<string[]>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "worker"], {
      env: {
        ...process.env,
        GLEANER_STORAGE: "postgres",
        GLEANER_QUEUE: "agenda",
        GLEANER_POSTGRES_URL: url,
        GLEANER_LOG_LEVEL: level,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let errors = "";
    let ended = false;
    const done = async () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      try {
        await whileRunning?.();
      } catch (error) {
        child.kill("SIGTERM");
        return reject(error);
      }
      child.kill("SIGTERM");
      resolve(lines);
    };
    const timer = setTimeout(() => void done(), ms);
    child.stdout.on("data", (chunk) => {
      for (const line of String(chunk).split("\n").filter(Boolean)) {
        lines.push(line);
        if (until?.(line)) void done();
      }
    });
    child.stderr.on("data", (chunk) => {
      errors += chunk;
    });
    child.on("exit", (code) => {
      if (code !== null && code !== 0 && lines.length === 0) reject(new Error(`worker exited ${code}: ${errors}`));
    });
  });

await whenPostgresReachable("gleaner worker logs", (url) => {
  describe("gleaner worker logs", function () {
    this.timeout(30_000);

    it("logs as the server does (pino JSON lines) at GLEANER_LOG_LEVEL=info", async () => {
      const lines = await workerOutput(url, "info", 20_000, (line) => line.includes("worker consuming"));
      const started = lines
        .map((line) => JSON.parse(line))
        .find((line) => line.msg === "worker consuming the run queue");
      expect(started, lines.join("\n")).to.deep.include({ level: 30, queue: "agenda" });
      expect(started.pid).to.be.a("number");
    });

    // The values it counts for a run it works: hosts/koa/test/worker-telemetry.test.ts.
    it("serves its Prometheus metrics on GLEANER_METRICS_PORT, as the server does", async () => {
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, "127.0.0.1", () => {
          const { port: free } = probe.address() as { port: number };
          probe.close(() => resolve(free));
        });
      });
      let scraped = "";
      await workerOutput(
        url,
        "info",
        20_000,
        (line) => line.includes("worker consuming"),
        { GLEANER_METRICS_PORT: String(port) },
        async () => {
          scraped = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        },
      );
      expect(scraped).to.contain("# TYPE gleaner_runs_finished_total counter");
      expect(scraped).to.match(/^gleaner_queue_waiting_runs \d+$/m);
    });

    it("writes nothing below warn at GLEANER_LOG_LEVEL=warn", async () => {
      const lines = await workerOutput(url, "warn", 4_000);
      expect(lines.filter((line) => !/"level":(40|50|60)/.test(line))).to.deep.equal([]);
    });
  });
});
