import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";
import { Storage } from "../ports/storage.js";

/**
 * A run's page bodies handed to the store as they are read (Storage.storePageBodyAhead, decision
 * 0029): a store that writes bodies apart from their artifacts (PostgreSQL) does so while the run
 * fetches and parses the next pages, instead of inside its acceptance. `settle` waits for every
 * hand-over, so none outlives the read, and answers the digests the store took: the acceptance
 * need not store those again (RunAcceptance.bodiesStored). A failed one only logs, as the
 * acceptance (or the failed run's evidence) stores any body the store still lacks.
 */
export const bodiesAhead = () => {
  const handed: Array<Fiber.RuntimeFiber<void>> = [];
  const stored = new Set<string>();
  return {
    hand: (sha256: string, body: string) =>
      Effect.flatMap(Storage, (storage) =>
        Effect.fork(
          storage.storePageBodyAhead(sha256, body).pipe(
            Effect.tap(() => stored.add(sha256)),
            Effect.catchAllCause((cause) =>
              Effect.logWarning("page body not stored ahead; the run's evidence stores it", cause),
            ),
          ),
        ),
      ).pipe(
        Effect.map((fiber) => handed.push(fiber)),
        Effect.asVoid,
      ),
    settle: Effect.suspend(() => Fiber.awaitAll(handed)).pipe(Effect.map((): ReadonlyArray<string> => [...stored])),
  };
};
