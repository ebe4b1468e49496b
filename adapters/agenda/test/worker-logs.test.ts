import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { whenPostgresReachable } from "./support.js";

const cli = join(dirname(fileURLToPath(import.meta.url)), "../../../hosts/koa/bin/gleaner.js");

/** Runs `gleaner worker` for `ms` (or until `until` sees a line) and answers what it wrote to stdout. */
const workerOutput = (url: string, level: string, ms: number, until?: (line: string) => boolean) =>
  new Promise<string[]>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "worker"], {
      env: {
        ...process.env,
        GLEANER_STORAGE: "postgres",
        GLEANER_QUEUE: "agenda",
        GLEANER_POSTGRES_URL: url,
        GLEANER_LOG_LEVEL: level,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let errors = "";
    const done = () => {
      clearTimeout(timer);
      child.kill("SIGTERM");
      resolve(lines);
    };
    const timer = setTimeout(done, ms);
    child.stdout.on("data", (chunk) => {
      for (const line of String(chunk).split("\n").filter(Boolean)) {
        lines.push(line);
        if (until?.(line)) done();
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

    it("writes nothing below warn at GLEANER_LOG_LEVEL=warn", async () => {
      const lines = await workerOutput(url, "warn", 4_000);
      expect(lines.filter((line) => !/"level":(40|50|60)/.test(line))).to.deep.equal([]);
    });
  });
});
