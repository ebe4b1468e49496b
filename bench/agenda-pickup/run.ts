/**
 * Agenda's pickup latency (issue 17: p95 ≤ 20 ms over 50 runs) against the memory queue: how long a
 * queued run waits before a worker starts it, read from the run resource (queuedAt → startedAt, the
 * trace's queueMs). Each round starts both hosts (host-child.ts: API and worker in one process,
 * configured by GLEANER_* variables; PostgreSQL + Agenda on a fresh database), then starts runs one
 * at a time on a one-page books site (20 books), alternating between the two hosts, each run after
 * the previous one finished and 50 ms of quiet, so every run is picked up by an idle worker. Not
 * part of npm test.
 *
 *   npm run bench:agenda-pickup -w @gleaner/bench [-- --rounds 5 --runs 10]
 */
import { loadavg } from "node:os";
import { loadBooks, startBooksSite } from "@gleaner/conformance";
import { median, percentile } from "../median.js";
import { booksDataset } from "../run-books/books.js";
import { clientOf, createDataset, runToSuccess } from "../host-client.js";
import { freshDatabase } from "../durable/database.js";
import { durableEnv, memoryEnv, spawnHost } from "../durable/processes.js";
import { positiveIntegerArg } from "../args.js";

const rounds = positiveIntegerArg("rounds", 5);
const runsPerRound = positiveIntegerArg("runs", 10);

type Queue = "memory" | "agenda";
const pickups: Record<Queue, number[]> = { memory: [], agenda: [] };
const perRoundP95: Record<Queue, number[]> = { memory: [], agenda: [] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const site = await startBooksSite({ books: loadBooks().slice(0, 20) });
try {
  console.log(
    `one-page books site ${site.url}; load average ${loadavg()[0]!.toFixed(1)}; ${rounds} rounds × ${runsPerRound} runs per queue`,
  );
  for (let round = 0; round < rounds; round++) {
    const database = await freshDatabase();
    const hosts = {
      memory: await spawnHost("serve", memoryEnv),
      agenda: await spawnHost("serve", durableEnv(database.url)),
    };
    try {
      const datasets = {
        memory: await createDataset(clientOf(hosts.memory.url, hosts.memory.key), booksDataset(site.url)),
        agenda: await createDataset(clientOf(hosts.agenda.url, hosts.agenda.key), booksDataset(site.url)),
      };
      const thisRound: Record<Queue, number[]> = { memory: [], agenda: [] };
      for (let n = 0; n < runsPerRound; n++) {
        const order: Queue[] = (round + n) % 2 === 0 ? ["memory", "agenda"] : ["agenda", "memory"];
        for (const queue of order) {
          await sleep(50);
          const { pickupMs } = await runToSuccess(clientOf(hosts[queue].url, hosts[queue].key), datasets[queue]);
          thisRound[queue].push(pickupMs);
        }
      }
      for (const queue of ["memory", "agenda"] as const) {
        pickups[queue].push(...thisRound[queue]);
        perRoundP95[queue].push(percentile(thisRound[queue], 95));
      }
      console.log(
        `  round ${round + 1}: agenda pickups ${thisRound.agenda.join(" ")} ms; memory ${thisRound.memory.join(" ")} ms`,
      );
    } finally {
      await Promise.all([hosts.memory.stop(), hosts.agenda.stop()]);
      await database.drop();
    }
  }
  console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await site.close();
}

console.log(
  `\n${"queue".padEnd(22)} ${"runs".padStart(5)} ${"median ms".padStart(10)} ${"p95 ms".padStart(7)} ${"max ms".padStart(7)}  p95 per round`,
);
for (const queue of ["memory", "agenda"] as const) {
  const xs = pickups[queue];
  console.log(
    `${(queue === "agenda" ? "Agenda (PostgreSQL)" : "memory").padEnd(22)} ${String(xs.length).padStart(5)} ` +
      `${median(xs).toFixed(0).padStart(10)} ${String(percentile(xs, 95)).padStart(7)} ${String(Math.max(...xs)).padStart(7)}  ${perRoundP95[queue].join(", ")}`,
  );
}
const p95 = percentile(pickups.agenda, 95);
console.log(`\nTarget: Agenda pickup p95 ≤ 20 ms: ${p95} ms — ${p95 <= 20 ? "MET" : "NOT MET"}`);
process.exit(0);
