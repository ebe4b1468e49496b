import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import {
  type GenerationTask,
  LanguageModel,
  type LanguageModelService,
  ModelInvalidOutput,
  ModelRateLimited,
  ModelRefused,
  ModelTimeout,
} from "../../ports/language-model.js";
import type { RecordFact, RunArtifact, RunEvidence } from "../../run-domain.js";
import type { DatasetColumn } from "../../schema/column.js";
import type { FieldId } from "../../schema/ids.js";
import { ExtractionOutput, type ResearchRecipe } from "../../schema/research.js";
import { headingsMarkedIn, langOfCleanedText } from "./artifacts.js";
import { ask } from "./ask.js";
import { parseChunkSubject } from "./chunks.js";
import { maxRowsPerPage } from "./prompts.js";
import { mergeCandidates } from "./merge.js";
import { type Candidate, validatePage, validationFailures } from "./validate.js";

/**
 * One recorded model answer, keyed by task and subject (the page URL of an extraction). The replay
 * format: a run's artifacts convert to it, and scripted answers for tests are written in it.
 */
export type RecordedAnswer =
  | { readonly task: GenerationTask; readonly subject: string | null; readonly output: unknown }
  | {
      readonly task: GenerationTask;
      readonly subject: string | null;
      readonly failure: "rate_limited" | "timeout" | "refused" | "invalid_output";
    };

const failures = {
  rate_limited: (m: string) => new ModelRateLimited({ message: m }),
  timeout: (m: string) => new ModelTimeout({ message: m }),
  refused: (m: string) => new ModelRefused({ message: m }),
  invalid_output: (m: string) => new ModelInvalidOutput({ message: m }),
};

/** A LanguageModel that answers from recorded answers only: no network, no model. */
export const replayLanguageModel = (
  answers: ReadonlyArray<RecordedAnswer>,
  modelId = "replay",
): LanguageModelService => ({
  provider: "replay",
  modelId,
  generate: (request) => {
    const answer = answers.find((a) => a.task === request.task && a.subject === request.subject);
    if (!answer) {
      return Effect.fail(
        new ModelRefused({ message: `No recorded ${request.task} answer for ${request.subject ?? "the plan"}.` }),
      );
    }
    if ("failure" in answer) return Effect.fail(failures[answer.failure](`Recorded ${answer.failure}.`));
    return Effect.succeed({ output: answer.output, modelId, usage: { inputTokens: 0, outputTokens: 0 } });
  },
});

export const ReplayLanguageModelLive = (answers: ReadonlyArray<RecordedAnswer>, modelId?: string) =>
  Layer.succeed(LanguageModel, replayLanguageModel(answers, modelId));

/** The recorded planning and extraction outputs of a run, in the replay format. */
export const answersFromArtifacts = (artifacts: ReadonlyArray<RunArtifact>): RecordedAnswer[] =>
  artifacts.flatMap((a): RecordedAnswer[] => {
    if (a.body === null) return [];
    if (a.kind === "planning output") return [{ task: "planning", subject: null, output: JSON.parse(a.body) }];
    if (a.kind === "extraction output") return [{ task: "extraction", subject: a.url, output: JSON.parse(a.body) }];
    return [];
  });

const columnsOf = (recipe: ResearchRecipe): DatasetColumn[] =>
  recipe.columns.map((c) => ({
    id: c.id as FieldId,
    label: c.label,
    ownership: "collected",
    name: c.name,
    type: c.type,
    key: false,
    ...(c.description === null ? {} : { description: c.description }),
  }));

/**
 * Recomputes validation and merging of a research run from its artifacts alone (the replay model
 * answers; nothing is read or asked): the facts diagnostics show with `basis: "replay"`.
 */
export const replayFacts = (evidence: RunEvidence, recipe: ResearchRecipe) =>
  Effect.gen(function* () {
    const model = replayLanguageModel(answersFromArtifacts(evidence.artifacts), recipe.model.modelId);
    const columns = columnsOf(recipe);
    const candidates: Candidate[] = [];
    const failed: Array<RunEvidence["failures"][number]> = evidence.failures.filter((f) => f.stage === "retrieval");
    const unknowns: string[] = [];
    // Each page's extraction outputs: one, or one per chunk (`#part=k/n`, numbered on as the run did).
    const subjects = evidence.artifacts.filter((a) => a.kind === "extraction output").map((a) => a.url);
    for (const page of evidence.artifacts.filter((a) => a.kind === "cleaned page text")) {
      if (page.body === null) {
        unknowns.push(`The cleaned text of ${page.url} exceeded 64 KiB and was not kept; it cannot be replayed.`);
        continue;
      }
      const parts = subjects.filter((subject) => parseChunkSubject(subject).url === page.url);
      if (parts.length === 0) {
        unknowns.push(
          `No extraction output was recorded for ${page.url} (the run stopped before it): what it says is unknown.`,
        );
        continue;
      }
      for (const subject of parts) {
        const answer = yield* Effect.either(
          ask(model, { task: "extraction", subject, system: "", user: "", schema: {} }, ExtractionOutput),
        );
        if (answer._tag === "Left") {
          unknowns.push(`No usable extraction output was recorded for ${subject}.`);
          continue;
        }
        const firstIndex = (parseChunkSubject(subject).part - 1) * maxRowsPerPage;
        const lang = langOfCleanedText(page.contentType);
        const marked = headingsMarkedIn(page.contentType);
        const validation = validatePage(page.url, page.body, answer.right.value, columns, firstIndex, lang, marked);
        candidates.push(...validation.candidates);
        failed.push(...validationFailures(page.url, validation));
      }
    }
    const entities = yield* mergeCandidates(
      candidates,
      columns.map((c) => c.id),
    );
    const facts: RecordFact[] = entities.map((e) => e.fact);
    return { facts, failures: failed, unknowns: unknowns.slice(0, 20) };
  });
