import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import type * as Either from "effect/Either";
import { Fetcher, type FetchedPage, type FetchRequest, type ReadFailed } from "../ports/fetcher.js";
import type { AcceptedRead } from "../page-reads.js";
import type { DatasetId } from "../schema/ids.js";
import type { Source } from "../schema/source.js";
import { conditionalFor, keptRead, knownFor, reusable, storedPage } from "./reuse.js";
import type { TraceRecorder } from "./trace.js";

/** A read, asked conditionally when the kept read allows; a 304 stands for the kept page. */
const fetchPage = (request: FetchRequest, kept: AcceptedRead | null) =>
  Effect.gen(function* () {
    const fetcher = yield* Fetcher;
    const conditional = conditionalFor(kept);
    const known = knownFor(kept);
    const answer = yield* fetcher.read({
      ...request,
      ...(conditional ? { conditional } : {}),
      ...(known ? { known } : {}),
    });
    if (!answer.notModified) return { page: answer, notModified: false };
    // Only asked with a kept body; should a 304 come anyway, ask again without validators.
    if (kept === null || kept.body === null) return { page: yield* fetcher.read(request), notModified: false };
    return { page: storedPage(answer, kept), notModified: true };
  });

/** One page's read as the read loop takes it: the kept read it was asked against, the answer, when. */
export interface PageFetch {
  readonly url: string;
  /** The dataset's newest accepted read of the URL, whatever its recipe. */
  readonly lastRead: AcceptedRead | null;
  /** `lastRead` when its extraction can be reused under the run's recipe. */
  readonly kept: AcceptedRead | null;
  readonly result: Either.Either<{ readonly page: FetchedPage; readonly notModified: boolean }, ReadFailed>;
  readonly started: number;
  readonly finished: number;
}

/**
 * Reads one page, shown as a `running` read step (with its URL) to anyone watching the trace until it
 * ends. Never fails: a failed read is the `result`'s Left, for the read loop to record in its turn.
 */
export const fetchStep = (
  url: string,
  source: Source,
  trace: TraceRecorder,
  lookIn: DatasetId | null,
  recipe: string,
) =>
  Effect.gen(function* () {
    const lastRead = yield* keptRead(lookIn, url);
    const kept = reusable(lastRead, recipe);
    const started = yield* Clock.currentTimeMillis;
    const reading = yield* trace.begin("read", { sourceUrl: url.slice(0, 2048) });
    const request: FetchRequest = {
      url,
      render: source.render,
      proxy: source.proxy,
      ignoreRobots: source.ignoreRobots,
      waitForSelector: source.itemSelector,
      // One attempt's reads share a browser session (context, guard proxy, page) when rendering.
      runId: trace.attemptId,
    };
    const result = yield* Effect.either(fetchPage(request, kept));
    const finished = yield* Clock.currentTimeMillis;
    trace.end(reading);
    return { url, lastRead, kept, result, started, finished } satisfies PageFetch;
  });

const nextMacrotask: (resume: () => void) => void =
  typeof setImmediate === "function" ? (resume) => setImmediate(resume) : (resume) => setTimeout(resume, 0);

/**
 * Lets pending callbacks run before a long synchronous stretch: a read just started gets as far as
 * sending its request (its promise chain runs on microtasks), so the site answers while the engine
 * extracts instead of after.
 */
export const letPendingWorkRun: Effect.Effect<void> = Effect.async<void>((resume) => {
  nextMacrotask(() => resume(Effect.void));
});
