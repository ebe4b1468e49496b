import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";

/** What the model is asked for; also names the JSON Schema, and keys recorded answers for replay. */
export type GenerationTask = "planning" | "extraction";

/** One structured generation: messages and a JSON Schema in. */
export interface GenerationRequest {
  readonly task: GenerationTask;
  /** What the request is about (the page URL for an extraction; null for the plan). */
  readonly subject: string | null;
  readonly system: string;
  readonly user: string;
  /** A JSON Schema (draft-07 subset accepted by strict structured outputs) the answer must match. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** The most tokens the answer may take (the request's share of the context window). */
  readonly maxOutputTokens?: number;
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The decoded JSON answer; core decodes it further with its own schema. */
export interface Generation {
  readonly output: unknown;
  readonly modelId: string;
  readonly usage: TokenUsage;
}

/** The server answered 429 (after the adapter's own retries). */
export class ModelRateLimited extends Schema.TaggedError<ModelRateLimited>()("ModelRateLimited", {
  message: Schema.String,
}) {}

/** No answer within the adapter's time limit, or the server could not be reached. */
export class ModelTimeout extends Schema.TaggedError<ModelTimeout>()("ModelTimeout", {
  message: Schema.String,
}) {}

/** The server kept failing (5xx after the adapter's retries): it is not well, whatever the model. */
export class ModelServerFailed extends Schema.TaggedError<ModelServerFailed>()("ModelServerFailed", {
  message: Schema.String,
  status: Schema.Int,
}) {}

/** The server does not know the configured model (404): the model name is wrong. */
export class ModelNotFound extends Schema.TaggedError<ModelNotFound>()("ModelNotFound", {
  message: Schema.String,
  model: Schema.String,
}) {}

/** The model declined to answer (a refusal, a content filter) or the server rejected the request. */
export class ModelRefused extends Schema.TaggedError<ModelRefused>()("ModelRefused", {
  message: Schema.String,
}) {}

/** The answer is not JSON matching the requested schema. */
export class ModelInvalidOutput extends Schema.TaggedError<ModelInvalidOutput>()("ModelInvalidOutput", {
  message: Schema.String,
}) {}

export type ModelFailure =
  | ModelRateLimited
  | ModelTimeout
  | ModelServerFailed
  | ModelNotFound
  | ModelRefused
  | ModelInvalidOutput;

export interface LanguageModelService {
  /** Who serves the model, for the pinned recipe (e.g. "openai-compatible", "replay"). Never a secret. */
  readonly provider: string;
  /** The configured model id (the answer's own id may be more precise). */
  readonly modelId: string;
  readonly generate: (request: GenerationRequest) => Effect.Effect<Generation, ModelFailure>;
}

/**
 * Structured generation for research runs. Adapters: @gleaner/openai (any OpenAI-compatible
 * Chat Completions server) and the replay model in core (answers from a run's recorded artifacts).
 */
export class LanguageModel extends Context.Tag("@gleaner/core/LanguageModel")<LanguageModel, LanguageModelService>() {}
