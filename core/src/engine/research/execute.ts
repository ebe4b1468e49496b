import { countRunStarted, runSpanAttributes } from "../metered.js";
import * as Cause from "effect/Cause";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { isStorageUnavailable } from "../../errors.js";
import { LanguageModel, type LanguageModelService, type ModelFailure } from "../../ports/language-model.js";
import { MainTextReader } from "../../ports/main-text.js";
import type { RunJob } from "../../ports/run-queue.js";
import { SearchEngine, type SearchResult } from "../../ports/search-engine.js";
import { Storage } from "../../ports/storage.js";
import { blockingReasons } from "../../reading/refusals.js";
import type { RecordFact, RunArtifact, RunEvidence, RunPlanRecord } from "../../run-domain.js";
import { ExtractionOutput, ResearchPlan, type ResearchRecipe } from "../../schema/research.js";
import { newId } from "../../schema/ids.js";
import { isoAt as iso, nowIso } from "../../time.js";
import type { CheckResult } from "../../schema/run.js";
import { emptyPlan, type Pinned, pinnedRecipe } from "../phases.js";
import { pagesToCharge } from "../../rules/page-identity.js";
import { failedChecksMessage, rowsKeptChangingMessage } from "../../rules/run-errors.js";
import { acceptPhase } from "../accept.js";
import { observePages, recordedFailures } from "../evidence.js";
import { TraceRecorder } from "../trace.js";
import { cleanedTextType, recordArtifact } from "./artifacts.js";
import { ask, describeModelFailure } from "./ask.js";
import { researchChecks } from "./checks.js";
import { mergeCandidates } from "./merge.js";
import {
  extractionMessages,
  extractionSchema,
  maxQueries,
  maxRowsPerPage,
  planningMessages,
  planningSchema,
} from "./prompts.js";
import { candidateUrls, type ResearchRead, readResults, readSite } from "./read.js";
import { pinRecipe, searchQueries } from "./recipe.js";
import { researchTrace } from "./trace.js";
import {
  type Candidate,
  combineValidations,
  type PageValidation,
  validatePage,
  validationFailures,
} from "./validate.js";
import { chunkCharsFor, chunkSubject, ModelBudget, outputTokensFor, splitIntoChunks } from "./chunks.js";

const resultsPerQuery = 10;
const isModelFailure = (e: unknown): e is ModelFailure =>
  typeof e === "object" &&
  e !== null &&
  [
    "ModelRateLimited",
    "ModelTimeout",
    "ModelServerFailed",
    "ModelNotFound",
    "ModelRefused",
    "ModelInvalidOutput",
  ].includes((e as { _tag?: string })._tag ?? "");

/** What a research run has recorded so far; written with the run however it ends. */
interface Recorded {
  artifacts: RunArtifact[];
  recipe: ResearchRecipe | null;
  facts: RecordFact[];
  failures: Array<RunEvidence["failures"][number]>;
  /** What diagnostics show under "request and plan": the pinned source, checks, reconciliation. */
  plan: RunPlanRecord;
}

/**
 * Executes one delivery of a research run: planning -> configure -> pin -> search -> read ->
 * extract -> validate -> preview -> accept (docs/decisions/0014-research-runs.md). Claimed and
 * accepted exactly like a deterministic run, so a retried job never applies or charges twice.
 */
export const executeResearchRun = Effect.fn("run.research")(function* (job: RunJob, redelivered: boolean) {
  const storage = yield* Storage;
  const claimed = yield* storage.claimRun(job.runId, yield* nowIso, redelivered);
  if (Option.isNone(claimed)) return;
  const { run, dataset: claimedDataset } = claimed.value;
  yield* Effect.logInfo("run started").pipe(
    Effect.annotateLogs({ runId: run.id, datasetId: run.datasetId, redelivered, kind: "research" }),
  );
  yield* countRunStarted(run, "research", redelivered);
  yield* Effect.annotateCurrentSpan(runSpanAttributes(run, "research"));
  // The trace is published while the run works, like a deterministic run's.
  const recorder: TraceRecorder = new TraceRecorder(newId(), () =>
    storage.saveTraceProgress(run.id, researchTrace(run, recorder, null)).pipe(Effect.ignore),
  );
  const recorded: Recorded = { artifacts: [], recipe: null, facts: [], failures: [], plan: emptyPlan };
  // Tokens the model reported for this run's generations, stored with the pinned recipe.
  const usage = { generations: 0, inputTokens: 0, outputTokens: 0 };
  const metered = (model: LanguageModelService): LanguageModelService => ({
    ...model,
    generate: (request) =>
      Effect.tap(model.generate(request), (generation) =>
        Effect.sync(() => {
          usage.generations += 1;
          usage.inputTokens += generation.usage.inputTokens;
          usage.outputTokens += generation.usage.outputTokens;
        }),
      ),
  });
  const evidence = (completedAt: string): RunEvidence => ({
    ...recorded,
    recipe: recorded.recipe && { ...recorded.recipe, usage: { ...usage } },
    trace: researchTrace(run, recorder, completedAt),
  });

  // Logged like a deterministic run's ending: the error names an upstream status, never a key.
  const finish = (status: "failed" | "blocked" | "held", checks: CheckResult[], error: string) =>
    Effect.gen(function* () {
      const completedAt = yield* nowIso;
      const stored = yield* storage.finishRun({ ...run, status, checks, error, completedAt }, evidence(completedAt));
      yield* Effect.logInfo(`run ${status}`).pipe(
        Effect.annotateLogs({
          runId: run.id,
          datasetId: run.datasetId,
          kind: "research",
          status,
          error,
          creditsCharged: 0,
        }),
      );
      return stored;
    });

  const work = Effect.gen(function* () {
    const pinnedDataset = yield* claimedDataset;
    if (Option.isNone(pinnedDataset)) return yield* finish("failed", [], "The dataset no longer exists.");
    const dataset = pinnedDataset.value;
    const pinned: Pinned = {
      columns: dataset.columns,
      schemaVersion: dataset.schemaVersion,
      recipe: dataset.recipes[dataset.recipes.length - 1],
    };
    const source = pinned.recipe?.source;
    if (source?.version !== 1) {
      return yield* finish(
        "held",
        [],
        "The recipe cannot be navigated; create a dataset with an explicit list source.",
      );
    }
    recorded.plan = { ...emptyPlan, recipe: pinnedRecipe(pinned, source) };
    const question = dataset.question;
    if (question === null) return yield* finish("failed", [], "The dataset has no question to research.");
    const model = Option.map(yield* Effect.serviceOption(LanguageModel), metered);
    const reader = yield* Effect.serviceOption(MainTextReader);
    const search = yield* Effect.serviceOption(SearchEngine);
    if (Option.isNone(model) || Option.isNone(reader)) {
      return yield* finish("failed", [], "This worker has no language model configured (GLEANER_MODEL_URL).");
    }
    const columns = dataset.columns.filter((c) => c.ownership === "collected");
    const searching = Option.isSome(search);

    // planning: the question and columns become a plan (recorded as "planning output").
    const planned = yield* recorder.timed(
      "planning",
      ask(
        model.value,
        {
          task: "planning",
          subject: null,
          ...planningMessages(question, columns, searching),
          schema: planningSchema,
          maxOutputTokens: outputTokensFor((yield* ModelBudget).contextTokens),
        },
        ResearchPlan,
      ),
    );
    recorded.artifacts.push(
      yield* recordArtifact(
        run.id,
        "planning output",
        source.url,
        JSON.stringify(planned.raw),
        "application/json",
        yield* nowIso,
      ),
    );

    // configure and pin: limits from the source and the plan, then the recipe the run is held to.
    const queries = yield* recorder.timed(
      "configure",
      Effect.sync(() => (searching ? searchQueries(planned.value, question, maxQueries) : [])),
    );
    recorded.recipe = yield* recorder.timed(
      "pin",
      Effect.sync(() =>
        pinRecipe({
          question,
          columns,
          plan: planned.value,
          model: { provider: model.value.provider, modelId: planned.modelId || model.value.modelId },
          searchEngine: Option.isSome(search) ? search.value.name : null,
          source,
        }),
      ),
    );

    // search and read: search results (each still guarded at read time), or the declared site.
    let read: ResearchRead;
    if (Option.isSome(search)) {
      const results: SearchResult[] = [];
      for (const query of queries) {
        results.push(...(yield* recorder.timed("search", search.value.search(query, resultsPerQuery))));
      }
      read = yield* readResults(candidateUrls(results, source.maxPages), source, recorder, reader.value);
    } else {
      read = yield* readSite(source, dataset.columns, recorder, reader.value);
    }
    recorded.failures.push(...recordedFailures(read.failures));
    // Every page read is recorded as read, whether or not the run goes on to ask the model about it.
    for (const page of read.pages) {
      recorded.artifacts.push(
        yield* recordArtifact(
          run.id,
          "cleaned page text",
          page.url,
          page.text,
          cleanedTextType(page.lang),
          yield* nowIso,
        ),
      );
    }
    if (
      read.pages.length === 0 &&
      read.failures.length > 0 &&
      read.failures.every((f) => blockingReasons.has(f.failure.reason))
    ) {
      const first = read.failures[0];
      const coverage = {
        checkId: "coverage",
        passed: false,
        message: read.coverage.complete ? "" : read.coverage.reason,
      };
      return yield* finish(
        "blocked",
        [coverage],
        `The site refused every read: ${first?.url} answered ${first?.failure.reason}.`,
      );
    }

    // Coverage already lost (a page failed, or pages beyond maxPages remain): the run cannot be
    // accepted, so no page is sent to the model (no tokens spent on an answer that is thrown away).
    if (!read.coverage.complete) {
      const coverage = { checkId: "coverage", passed: false, message: read.coverage.reason };
      return yield* finish("failed", [coverage], `coverage: ${read.coverage.reason}`);
    }

    // extract and validate, page by page: a page longer than one request carries is read in chunks
    // (each an extract step and an extraction output artifact, `#part=k/n`), validated against the
    // whole page's text.
    const budget = yield* ModelBudget;
    const chunkChars = chunkCharsFor(budget.contextTokens);
    const maxOutputTokens = outputTokensFor(budget.contextTokens);
    const checked: Array<{ url: string; sha256: string; validation: PageValidation }> = [];
    const candidates: Candidate[] = [];
    for (const page of read.pages) {
      // A page with no main text has nothing to ask about: no tokens are spent on it.
      const chunks = page.text.trim() === "" ? [] : splitIntoChunks(page.text, chunkChars);
      const parts: PageValidation[] = [];
      for (const [i, chunk] of chunks.entries()) {
        const subject = chunkSubject(page.url, i + 1, chunks.length);
        const started = yield* Clock.currentTimeMillis;
        const extracted = yield* Effect.either(
          ask(
            model.value,
            {
              task: "extraction",
              subject,
              ...extractionMessages(
                question,
                columns,
                planned.value,
                { ...page, text: chunk },
                {
                  part: i + 1,
                  parts: chunks.length,
                },
              ),
              schema: extractionSchema(columns),
              maxOutputTokens,
            },
            ExtractionOutput,
          ),
        );
        const timing = () =>
          Effect.map(Clock.currentTimeMillis, (ended) => ({
            startedAt: iso(started),
            durationMs: Math.max(0, Math.round(ended - started)),
            // A chunk's step names its part as its output does (`#part=k/n`), within the URL's 2048 characters.
            sourceUrl: subject.length <= 2048 ? subject : page.url.slice(0, 2048),
          }));
        if (extracted._tag === "Left") {
          recorder.add({ phase: "extract", status: "failed", ...(yield* timing()) });
          return yield* Effect.fail(extracted.left);
        }
        const rows = extracted.right.value.rows.length;
        recorder.add({
          phase: "extract",
          status: "succeeded",
          candidateRows: Math.min(maxRowsPerPage, rows),
          ...(yield* timing()),
        });
        recorded.artifacts.push(
          yield* recordArtifact(
            run.id,
            "extraction output",
            subject,
            JSON.stringify(extracted.right.raw),
            "application/json",
            yield* nowIso,
          ),
        );
        // The text is the reader's, which marks headings (MainText), as its recorded media type says.
        const validation = validatePage(
          page.url,
          page.text,
          extracted.right.value,
          columns,
          i * maxRowsPerPage,
          page.lang,
          true,
        );
        parts.push(validation);
      }
      const validationStarted = yield* Clock.currentTimeMillis;
      const validation = combineValidations(parts);
      recorder.add({
        phase: "validate",
        status: "succeeded",
        startedAt: iso(validationStarted),
        durationMs: Math.max(0, Math.round((yield* Clock.currentTimeMillis) - validationStarted)),
        sourceUrl: page.url.slice(0, 2048),
        candidateRows: Math.min(25, validation.candidateRows),
        rejectedRows: Math.min(25, validation.rejectedNames.length),
        matchedRows: Math.min(25, validation.candidates.length),
      });
      recorded.failures.push(...validationFailures(page.url, validation));
      checked.push({ url: page.url, sha256: page.sha256, validation });
      candidates.push(...validation.candidates);
    }

    // preview: one row per entity, whatever page or name it was seen under.
    const entities = yield* recorder.timed(
      "preview",
      mergeCandidates(
        candidates,
        columns.map((c) => c.id),
      ),
    );
    recorded.facts = entities.map((e) => e.fact);
    const records = entities.slice(0, source.maxItems).map((e) => e.record);
    const coverage =
      entities.length > source.maxItems
        ? { complete: false as const, reason: `More than maxItems (${source.maxItems}) entities were found.` }
        : read.coverage;
    const refused = checked.reduce((n, p) => n + p.validation.refusals.length, 0);
    const outcome = researchChecks(source, dataset.columns, records, coverage, refused);
    const checks = [...outcome.results];
    recorded.plan = { ...recorded.plan, checks: outcome.names };
    if (checks.some((c) => !c.passed))
      return yield* finish("failed", checks, failedChecksMessage(checks, dataset.columns));
    const accepted = yield* acceptPhase({
      run,
      schemaVersion: dataset.schemaVersion,
      columns: dataset.columns,
      records,
      checks,
      plan: recorded.plan,
      pages: pagesToCharge(checked.map((p) => p.url)),
      observe: (at) =>
        observePages(
          checked.map((p) => ({ url: p.url, sha256: p.sha256, entries: p.validation.entries })),
          "model",
          run,
          at,
        ),
      trace: (at, step) => researchTrace(run, recorder, at, step),
      evidence: (at, trace, plan) => ({ ...evidence(at), trace, plan }),
    });
    if (accepted === "exhausted") {
      yield* finish("failed", checks, rowsKeptChangingMessage);
    }
  });

  yield* work.pipe(
    // Every line the run logs (acceptance included) names the run, as a deterministic run's do.
    Effect.annotateLogs({ runId: run.id, datasetId: run.datasetId, kind: "research" }),
    Effect.annotateSpans(runSpanAttributes(run, "research")),
    Effect.catchAll((error) => {
      if (isModelFailure(error)) {
        return finish(
          "failed",
          [],
          `The language model failed: ${describeModelFailure(error)}; nothing was written or charged.`,
        );
      }
      if (error._tag === "SearchFailed") {
        return finish("failed", [], "The search engine could not answer; nothing was written or charged.");
      }
      return Effect.fail(error);
    }),
    Effect.catchAllCause((cause) =>
      Effect.gen(function* () {
        // The database is away: leave the run as it is; the worker delivers it again (worker.ts).
        if (Cause.failureOption(cause).pipe(Option.exists(isStorageUnavailable))) return yield* Effect.failCause(cause);
        yield* Effect.logError("research run failed unexpectedly", cause);
        yield* finish("failed", [], "The run stopped on an internal error; nothing was written or charged.");
      }),
    ),
  );
});
