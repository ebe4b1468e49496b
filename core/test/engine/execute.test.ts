import { Htmlparser2ParserLive } from "@gleaner/htmlparser2";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as Layer from "effect/Layer";
import * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import * as Schema from "effect/Schema";
import * as TestClock from "effect/TestClock";
import * as TestContext from "effect/TestContext";
import * as Tracer from "effect/Tracer";
import {
  CreateDatasetRequest,
  createApiKey,
  createDataset,
  decodeBody,
  createRun,
  DocumentParser,
  executeRun,
  Fetcher,
  getDiagnostics,
  getTrace,
  type OwnerId,
  ReadFailed,
  type ReadFailureReason,
  type RunAcceptance,
  RunEvidence,
  type RunId,
  Storage,
} from "../../src/index.js";
import { fetchedPage } from "./fetched-page.js";
import { body, goodPages, item, page, site } from "./shop-site.js";

/** A Fetcher that answers from a map of pages, and refuses the URLs in `refused` with a reason. */
const stubFetcher = (pages: Record<string, string>, refused: Record<string, ReadFailureReason> = {}) =>
  Layer.succeed(Fetcher, {
    read: (request) => {
      const reason = refused[request.url];
      if (reason) {
        const failure = { reason, status: reason === "rate_limited" ? 429 : 403, finalUrl: site };
        return Effect.fail(new ReadFailed({ failure, message: `${request.url} answered ${reason}.`, attempts: 1 }));
      }
      const html = pages[request.url];
      if (html === undefined) throw new Error(`The stub has no page ${request.url}.`);
      return Effect.succeed(fetchedPage(request.url, html));
    },
  });

const start = Date.parse("2026-11-22T10:00:00Z");

/** A tracer that notes each span's name and otherwise behaves as Effect's own. */
const spanNames: string[] = [];
const notingTracer = Layer.unwrapEffect(
  Effect.map(Effect.tracer, (base) =>
    Layer.setTracer(
      Tracer.make({
        span: (name, ...rest) => {
          spanNames.push(name);
          return base.span(name, ...rest);
        },
        context: (f, fiber) => base.context(f, fiber),
      }),
    ),
  ),
);

/** One run of the engine on memory layers, with a virtual clock: queued, 5 s later executed. */
const runOnce = async (options: {
  credits: number;
  pages?: Record<string, string>;
  refused?: Record<string, ReadFailureReason>;
  /** Virtual milliseconds each parse and the acceptance write take (the clock moves inside them). */
  parseMs?: number;
  acceptWriteMs?: number;
}) => {
  const clock = Layer.effectDiscard(TestClock.setTime(start)).pipe(Layer.provideMerge(TestContext.TestContext));
  const accepted: RunAcceptance[] = [];
  const slowWrite = Layer.effect(
    Storage,
    Effect.map(Storage, (store) => ({
      ...store,
      acceptRun: (acceptance: Parameters<typeof store.acceptRun>[0]) => {
        accepted.push(acceptance);
        // The write's work before the store stamps the run (rows, revisions, charge) takes this long.
        return Effect.zipRight(TestClock.adjust(options.acceptWriteMs ?? 0), store.acceptRun(acceptance));
      },
    })),
  ).pipe(Layer.provideMerge(MemoryStoreLive));
  const slowParse = Layer.effect(
    DocumentParser,
    Effect.map(DocumentParser, (parser) => ({
      parse: (html: string, url: string) =>
        Effect.zipRight(TestClock.adjust(options.parseMs ?? 0), parser.parse(html, url)),
    })),
  ).pipe(Layer.provide(Htmlparser2ParserLive));
  const layers = Layer.mergeAll(
    slowWrite,
    MemoryRunQueueLive(),
    slowParse,
    stubFetcher(options.pages ?? goodPages, options.refused),
  );
  const runtime = ManagedRuntime.make(Layer.mergeAll(Layer.provideMerge(layers, clock), notingTracer));
  const run = <A, E>(effect: Effect.Effect<A, E, any>) => runtime.runPromise(effect as Effect.Effect<A, E, never>);
  const { owner } = await run(createApiKey(`owner-${globalThis.crypto.randomUUID()}`, options.credits));
  const dataset = await run(
    Effect.flatMap(decodeBody(CreateDatasetRequest, body), (request) => createDataset(owner.id, request)),
  );
  const execute = async () => {
    const { runId } = await run(createRun(owner.id, dataset.id));
    await run(TestClock.adjust(5_000));
    await run(executeRun({ runId: runId as RunId, datasetId: dataset.id as never }, false));
    return runId;
  };
  const runId = await execute();
  const stored = Option.getOrThrow(await run(Effect.flatMap(Storage, (s) => s.getRun(owner.id as OwnerId, runId))));
  const { trace } = await run(getTrace(owner.id, runId));
  const evidence = Option.getOrThrow(await run(Effect.flatMap(Storage, (s) => s.getRunEvidence(runId as RunId))));
  const diagnostics = (query: Record<string, string> = {}) =>
    run(getDiagnostics(owner.id, runId, query)).then((d) => d.diagnostics as any);
  return { stored, trace, evidence, diagnostics, accepted, execute, dispose: () => runtime.dispose() };
};

const phaseCount = (trace: { phases: ReadonlyArray<{ phase: string; count: number }> }, phase: string) =>
  trace.phases.find((p) => p.phase === phase)?.count ?? 0;

describe("run engine (memory layers, stub fetcher, TestClock)", () => {
  it("accepts a run whole: each phase a span and a trace step, queue time from the clock", async () => {
    spanNames.length = 0;
    const { stored, trace, diagnostics, dispose } = await runOnce({ credits: 10 });
    for (const phase of ["run.execute", "run.pin", "run.read", "run.validate", "run.accept", "run.reconcile"]) {
      expect(spanNames, phase).to.include(phase);
    }
    expect(stored.status).to.equal("succeeded");
    expect(stored.rowDeltas).to.deep.equal({ new: 3, changed: 0, gone: 0 });
    expect(stored.chargedPages).to.equal(2);
    expect(trace.phases.map((p) => p.phase)).to.deep.equal(["pin", "extract", "read", "validate", "accept"]);
    expect(phaseCount(trace, "validate")).to.equal(1);
    expect(trace.steps.at(-1)).to.include({ phase: "accept", status: "succeeded" });
    expect(trace.queueMs).to.equal(5_000);
    const d = await diagnostics();
    expect(d.findings[0].code).to.equal("run_accepted");
    expect(d.completion.outputComplete).to.equal(true);
    expect(d.request).to.include({ recipeVersion: 1 });
    expect(d.reconciliation).to.include({ applied: true, new: 3, changed: 0, unchanged: 0, gone: 0 });
    await dispose();
  });

  it("tells the truth in the trace: extract steps include the parse, the accept step the write, completedAt after it", async () => {
    for (const credits of [10, 1]) {
      const { stored, trace, dispose } = await runOnce({ credits, parseMs: 40, acceptWriteMs: 750 });
      expect(stored.status).to.equal(credits === 10 ? "succeeded" : "held");
      const extracts = trace.steps.filter((s) => s.phase === "extract");
      expect(extracts.map((s) => s.durationMs)).to.deep.equal([40, 40]);
      const accept = trace.steps.at(-1)!;
      expect(accept.phase).to.equal("accept");
      expect(accept.durationMs).to.equal(750);
      const acceptEnded = Date.parse(accept.startedAt) + accept.durationMs!;
      expect(stored.completedAt).to.equal(new Date(acceptEnded).toISOString());
      expect(trace.wallMs).to.equal(acceptEnded - Date.parse(stored.startedAt!));
      await dispose();
    }
  });

  it("marks rows a run saw unchanged as seen only, citing where the values were read, and stores no new observation", async () => {
    const { accepted, execute, dispose } = await runOnce({ credits: 10 });
    await execute();
    expect(accepted).to.have.length(2);
    const [first, second] = accepted as [RunAcceptance, RunAcceptance];
    // Observations are read only through citations: the second run's pages are cited by no row.
    expect(first.observations).to.have.length(2);
    expect(second.observations).to.deep.equal([]);
    expect(second.rows).to.have.length(3);
    for (const { row, seenOnly } of second.rows) {
      const before = first.rows.find((r) => r.row.id === row.id)!.row;
      expect(seenOnly).to.equal(true);
      expect(row).to.deep.equal({
        ...before,
        status: "unchanged",
        lastSeenRunId: second.run.id,
        observedAt: row.observedAt,
      });
      expect(row.observedAt > before.observedAt).to.equal(true);
    }
    await dispose();
  });

  it("holds a run the owner cannot pay for; its trace ends in a failed accept step", async () => {
    const { stored, trace, diagnostics, dispose } = await runOnce({ credits: 1 });
    expect(stored.status).to.equal("held");
    expect(trace.steps.at(-1)).to.include({ phase: "accept", status: "failed" });
    const d = await diagnostics();
    expect(d.findings[0]).to.deep.equal({
      code: "run_held_insufficient_credits",
      message: "Every check passed, but the owner cannot pay for 2 pages; nothing was written or charged.",
    });
    expect(d.cost).to.include({ pagesToCharge: 2, pagesCharged: 0 });
    await dispose();
  });

  it("fails a run with a page refused and a bad value: checks run once, the failure cites the read step", async () => {
    const pages = { ...goodPages, [`${site}/p1`]: page(item(1, "£1.00") + item(2, "abc"), "/p2") };
    const { stored, trace, diagnostics, dispose } = await runOnce({
      credits: 10,
      pages,
      refused: { [`${site}/p2`]: "rate_limited" },
    });
    expect(stored.status).to.equal("failed");
    expect(stored.checks.filter((c) => !c.passed).map((c) => c.checkId)).to.deep.equal(["coverage", "extraction"]);
    expect(phaseCount(trace, "validate")).to.equal(1);
    expect(trace.steps.some((s) => s.phase === "accept")).to.equal(false);
    const failedRead = trace.steps.find((s) => s.status === "failed" && s.phase === "read");
    const d = await diagnostics({ summary: "true" });
    const group = d.summary.failureGroups.find((g: any) => g.stage === "retrieval");
    expect(group.code).to.equal("rate_limited");
    expect(group.examples[0]).to.deep.equal({ entity: "", evidenceId: failedRead?.stepId, url: `${site}/p2` });
    expect(d.summary.outputComplete).to.equal(false);
    await dispose();
  });

  it("records evidence the stores decode whole on every ending: accepted, held, failed and blocked", async () => {
    const endings = [
      { credits: 10 },
      { credits: 1 },
      { credits: 10, refused: { [`${site}/p2`]: "rate_limited" as const } },
      { credits: 10, refused: { [`${site}/p1`]: "forbidden" as const } },
    ];
    const statuses: string[] = [];
    for (const ending of endings) {
      const { stored, evidence, dispose } = await runOnce(ending);
      statuses.push(stored.status);
      // Every field the engine records is one the stored schema knows, within its limits.
      const decoded = Schema.decodeUnknownEither(RunEvidence, { onExcessProperty: "error" })(evidence);
      expect(Either.getOrThrow(decoded)).to.deep.equal(evidence);
      await dispose();
    }
    expect(statuses).to.deep.equal(["succeeded", "held", "failed", "blocked"]);
  });

  it("blocks a run whose every read was refused, with the checks it ran once", async () => {
    const { stored, trace, dispose } = await runOnce({ credits: 10, refused: { [`${site}/p1`]: "forbidden" } });
    expect(stored.status).to.equal("blocked");
    expect(stored.checks.map((c) => c.checkId)).to.include("coverage");
    expect(phaseCount(trace, "validate")).to.equal(1);
    expect(stored.error).to.contain("forbidden");
    await dispose();
  });
});
