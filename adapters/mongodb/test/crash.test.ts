import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Credits, Storage, type StorageService } from "@gleaner/core";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import { after, describe, it } from "mocha";
import { MongoStoreLive } from "../src/index.js";
import { aDataset, anAcceptance, anOwner, aQueuedRun } from "@gleaner/conformance";
import { dropDatabase, freshDatabase, whenMongoConfigured } from "./support.js";

/**
 * The crash test: a worker process is killed (SIGKILL) while its acceptance transaction is in
 * flight. The store must hold all of it or none of it, and the redelivered job must then finish
 * the run exactly once, charging once. A transaction whose client died stays open on the server
 * until transactionLifetimeLimitSeconds (60 s by default) aborts it; until then the redelivery's
 * writes conflict and the driver keeps retrying, so this test may take a minute.
 */
whenMongoConfigured("mongodb crash test: a worker killed mid-acceptance", (url) => {
  describe("mongodb crash test: a worker killed mid-acceptance", function () {
    this.timeout(180_000);
    const database = freshDatabase("gleaner_crash_");
    const runtime = ManagedRuntime.make(MongoStoreLive({ url, database }));
    const store = <A, E>(f: (storage: StorageService) => Effect.Effect<A, E>) =>
      runtime.runPromise(Effect.flatMap(Storage, f));
    const credits = () => runtime.runPromise(Credits);
    const children: ChildProcess[] = [];
    after(async () => {
      for (const child of children) child.kill("SIGKILL");
      await runtime.dispose();
      await dropDatabase(url, database);
    });

    /** Starts the worker and kills it `delayMs` after it says it is accepting. */
    const acceptAndKill = async (file: string, delayMs: number): Promise<string> => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", new URL("./crash-child.ts", import.meta.url).pathname, url, database, file],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      children.push(child);
      let said = "";
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on("data", (chunk: Buffer) => {
          said += chunk.toString();
          if (said.includes("accepting")) {
            setTimeout(() => {
              child.kill("SIGKILL");
              resolve();
            }, delayMs);
          }
        });
        child.once("exit", (code) =>
          said.includes("accepting") ? resolve() : reject(new Error(`worker exited ${code}`)),
        );
      });
      await exited;
      return said;
    };

    for (const delayMs of [5, 150]) {
      it(`leaves all or nothing, then a redelivery accepts once (killed ${delayMs} ms in)`, async () => {
        const owner = anOwner();
        await store((s) => s.createOwner(owner));
        await Effect.runPromise((await credits()).grant(owner.id, 50));
        const dataset = aDataset(owner.id);
        await store((s) => s.insertDataset(dataset));
        const queued = aQueuedRun(dataset);
        await store((s) => s.insertRun(queued));
        const running = Option.getOrThrow(
          await store((s) => s.claimRun(queued.id, new Date().toISOString(), false)),
        ).run;
        // Enough rows that the transaction is still open when the kill lands.
        const acceptance = anAcceptance(
          running,
          7,
          Array.from({ length: 3000 }, (_, i) => `row-${i}`),
        );
        const file = join(await mkdtemp(join(tmpdir(), "gleaner-crash-")), "acceptance.json");
        await writeFile(file, JSON.stringify(acceptance));

        const said = await acceptAndKill(file, delayMs);

        const rows = (await store((s) => s.loadRows(dataset.id))).length;
        const sequence = await store((s) => s.lastSequence(dataset.id));
        const balance = await Effect.runPromise((await credits()).balance(owner.id));
        const committed = said.includes("Accepted");
        if (rows === 0) {
          expect({ sequence, balance }, "nothing written").to.deep.equal({ sequence: 0, balance: 50 });
        } else {
          expect({ rows, sequence, balance }, "everything written").to.deep.equal({
            rows: 3000,
            sequence: 3000,
            balance: 43,
          });
        }
        if (committed) expect(rows).to.equal(3000);

        // The job is redelivered: the run is reclaimed if it is still running, and accepted.
        const reclaimed = await store((s) => s.claimRun(running.id, new Date().toISOString(), true));
        const outcome = await store((s) => s.acceptRun(acceptance));
        expect(outcome._tag).to.equal(rows === 0 ? "Accepted" : "AlreadyFinished");
        expect(Option.isSome(reclaimed)).to.equal(rows === 0);

        expect((await store((s) => s.loadRows(dataset.id))).length).to.equal(3000);
        expect(await store((s) => s.lastSequence(dataset.id))).to.equal(3000);
        const ledger = await Effect.runPromise((await credits()).ledger(owner.id, "2000-01-01T00:00:00.000Z"));
        expect(ledger.filter((e) => e.kind === "charge")).to.have.length(1);
        expect(await Effect.runPromise((await credits()).balance(owner.id))).to.equal(43);
      });
    }
  });
});
