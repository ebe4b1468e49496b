import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import { NotReady } from "../errors.js";
import { RunQueue } from "../ports/run-queue.js";
import { Storage } from "../ports/storage.js";

const probeTimeout = Duration.seconds(2);

const probe = <E>(name: string, check: Effect.Effect<unknown, E>) =>
  check.pipe(
    Effect.timeoutFail({ duration: probeTimeout, onTimeout: () => "did not answer within 2 s" }),
    Effect.as({ name, problem: null as string | null }),
    Effect.catchAll((error) => Effect.succeed({ name, problem: typeof error === "string" ? error : describe(error) })),
  );

const describe = (error: unknown): string => {
  const message = (error as { message?: unknown })?.message;
  return typeof message === "string" && message !== "" ? message : "is unreachable";
};

/**
 * `/readyz`: the process can serve requests only when its storage (and queue, where the adapter
 * can be asked) answers. Storage is probed with a read that touches the database.
 */
export const checkReadiness = Effect.gen(function* () {
  const storage = yield* Storage;
  const queue = yield* RunQueue;
  const probes = [probe("storage", storage.findOwnerByName("gleaner-readiness-probe"))];
  if (queue.ping) probes.push(probe("queue", queue.ping));
  const results = yield* Effect.all(probes, { concurrency: "unbounded" });
  const failing = results.filter((r) => r.problem !== null);
  if (failing.length > 0) {
    return yield* Effect.fail(
      new NotReady({
        message: `Not ready: ${failing.map((r) => `${r.name} ${r.problem}`).join("; ")}.`,
        details: failing.map((r) => ({ path: r.name, message: r.problem ?? "" })),
      }),
    );
  }
  return { status: "ok" as const, checks: Object.fromEntries(results.map((r) => [r.name, "ok"])) };
});
