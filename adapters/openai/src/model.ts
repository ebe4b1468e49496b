import {
  boundedFetch,
  type GenerationRequest,
  isAnswerTooLarge,
  LanguageModel,
  type LanguageModelService,
  type ModelFailure,
  ModelInvalidOutput,
  ModelNotFound,
  ModelRateLimited,
  ModelRefused,
  ModelServerFailed,
  ModelTimeout,
  modelAnswerMaxBytes,
} from "@gleaner/core";
import { Ajv } from "ajv";
import * as Data from "effect/Data";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Redacted from "effect/Redacted";
import * as Schedule from "effect/Schedule";
import OpenAI from "openai";

export interface OpenAiModelConfig {
  /** Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1 (Ollama). */
  readonly url: string;
  /** Sent as the bearer token; local servers usually need none. Never logged. */
  readonly apiKey: Redacted.Redacted<string> | null;
  readonly model: string;
  /** One request's time limit (default 120 s). */
  readonly timeoutMs?: number;
  /** Retries of 429, 5xx and connection failures, with exponential backoff (default 3). */
  readonly maxRetries?: number;
  /** First backoff delay (default 1 s), doubled on each retry. */
  readonly retryBaseMs?: number;
  /** The most tokens one answer may take (default 4096): a model that rambles is cut off, not waited on. */
  readonly maxOutputTokens?: number;
}

/** Sampling that makes answers stable run after run: no temperature, and a fixed seed where honoured. */
const stableSampling = { temperature: 0, seed: 7 } as const;

/** A failure worth another try (429, 5xx, connection) as opposed to a final answer. */
class Retryable extends Data.TaggedError("Retryable")<{ readonly failure: ModelFailure }> {}

const classify =
  (model: string) =>
  (error: unknown): Retryable | ModelFailure => {
    if (isAnswerTooLarge(error)) return new ModelInvalidOutput({ message: (error as Error).message });
    if (error instanceof OpenAI.APIConnectionTimeoutError)
      return new ModelTimeout({ message: "The model server did not answer in time." });
    if (error instanceof OpenAI.RateLimitError) {
      return new Retryable({
        failure: new ModelRateLimited({ message: "The model server answered 429 (rate limited)." }),
      });
    }
    if (error instanceof OpenAI.APIConnectionError) {
      return new Retryable({ failure: new ModelTimeout({ message: "The model server could not be reached." }) });
    }
    if (error instanceof OpenAI.APIError && typeof error.status === "number" && error.status >= 500) {
      const message = `The model server failed (HTTP ${error.status}).`;
      return new Retryable({ failure: new ModelServerFailed({ message, status: error.status }) });
    }
    if (error instanceof OpenAI.NotFoundError) {
      return new ModelNotFound({ message: `The model server does not know the model ${model} (HTTP 404).`, model });
    }
    if (error instanceof OpenAI.APIError) {
      return new ModelRefused({ message: `The model server rejected the request (HTTP ${error.status ?? "?"}).` });
    }
    return new ModelRefused({ message: "The model request failed." });
  };

const jsonModeInstruction = (schema: unknown) =>
  `\n\nAnswer with one JSON object only, matching this JSON Schema:\n${JSON.stringify(schema)}`;

/**
 * A LanguageModel on any OpenAI-compatible Chat Completions server, through the official SDK.
 * Structured outputs use `response_format: json_schema` (strict); a server that rejects it (HTTP
 * 400) is asked again in JSON mode with the schema in the prompt, and the adapter remembers that.
 * Either way the answer is validated against the schema before core sees it.
 */
export const makeOpenAiModel = (config: OpenAiModelConfig): LanguageModelService => {
  /** One client per answer bound (a request's output tokens set it; there are one or two of them). */
  const clients = new Map<number, OpenAI>();
  const clientFor = (maxOutputTokens: number) => {
    const maxBytes = modelAnswerMaxBytes(maxOutputTokens);
    let client = clients.get(maxBytes);
    if (client === undefined) {
      client = new OpenAI({
        baseURL: config.url,
        apiKey: config.apiKey === null ? "none" : Redacted.value(config.apiKey),
        timeout: config.timeoutMs ?? 120_000,
        maxRetries: 0, // retries are the Effect schedule below, so backoff is visible and testable
        fetch: boundedFetch(maxBytes),
      });
      clients.set(maxBytes, client);
    }
    return client;
  };
  const ajv = new Ajv({ allErrors: true, strict: false });
  let jsonSchemaSupported = true;
  let seedSupported = true;

  const call = (request: GenerationRequest, mode: "json_schema" | "json_object", seeded: boolean) => {
    const maxTokens = request.maxOutputTokens ?? config.maxOutputTokens ?? 4096;
    return Effect.tryPromise({
      try: (signal) =>
        clientFor(maxTokens).chat.completions.create(
          {
            model: config.model,
            temperature: stableSampling.temperature,
            ...(seeded ? { seed: stableSampling.seed } : {}),
            max_tokens: maxTokens,
            messages: [
              {
                role: "system",
                content: mode === "json_schema" ? request.system : request.system + jsonModeInstruction(request.schema),
              },
              { role: "user", content: request.user },
            ],
            response_format:
              mode === "json_schema"
                ? {
                    type: "json_schema",
                    json_schema: { name: `gleaner_${request.task}`, schema: { ...request.schema }, strict: true },
                  }
                : { type: "json_object" },
          },
          { signal },
        ),
      catch: classify(config.model),
    });
  };

  const rejected = (e: Retryable | ModelFailure) => e._tag === "ModelRefused" && e.message.includes("HTTP 400");
  /** Asked again in JSON mode, without the seed, when the server rejects json_schema (remembered). */
  const inJsonMode = (request: GenerationRequest, e: Retryable | ModelFailure) => {
    if (!jsonSchemaSupported) return Effect.fail(e);
    jsonSchemaSupported = false;
    return call(request, "json_object", false);
  };

  const once = (request: GenerationRequest) =>
    Effect.gen(function* () {
      const mode = jsonSchemaSupported ? "json_schema" : "json_object";
      // A server that rejects a field (HTTP 400) is asked again without the seed first, then, for
      // json_schema, in JSON mode: each fallback is remembered for the adapter's later requests.
      const completion = yield* call(request, mode, seedSupported).pipe(
        Effect.catchIf(rejected, (e) => {
          if (!seedSupported) return inJsonMode(request, e);
          seedSupported = false;
          return call(request, mode, false).pipe(Effect.catchIf(rejected, (again) => inJsonMode(request, again)));
        }),
      );
      const choice = completion.choices[0];
      if (!choice) return yield* new ModelInvalidOutput({ message: "The answer has no choices." });
      if (choice.message.refusal || choice.finish_reason === "content_filter") {
        return yield* new ModelRefused({ message: "The model refused to answer." });
      }
      if (choice.finish_reason === "length") {
        return yield* new ModelInvalidOutput({ message: "The answer was cut off at the token limit." });
      }
      let output: unknown;
      try {
        output = JSON.parse(choice.message.content ?? "");
      } catch {
        return yield* new ModelInvalidOutput({ message: "The answer is not JSON." });
      }
      const validate = ajv.compile(request.schema);
      if (!validate(output)) {
        return yield* new ModelInvalidOutput({
          message: `The answer does not match the schema: ${ajv.errorsText(validate.errors).slice(0, 300)}`,
        });
      }
      return {
        output,
        modelId: completion.model || config.model,
        usage: {
          inputTokens: completion.usage?.prompt_tokens ?? 0,
          outputTokens: completion.usage?.completion_tokens ?? 0,
        },
      };
    });

  const retries = Schedule.exponential(Duration.millis(config.retryBaseMs ?? 1000)).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(config.maxRetries ?? 3)),
  );

  return {
    provider: "openai-compatible",
    modelId: config.model,
    generate: (request) =>
      once(request).pipe(
        Effect.retry({ schedule: retries, while: (e) => e._tag === "Retryable" }),
        Effect.catchTag("Retryable", (e) => Effect.fail(e.failure)),
        Effect.withSpan("OpenAiModel.generate", { attributes: { task: request.task, model: config.model } }),
      ),
  };
};

export const OpenAiModelLive = (config: OpenAiModelConfig) => Layer.sync(LanguageModel, () => makeOpenAiModel(config));
