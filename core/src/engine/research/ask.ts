import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as ParseResult from "effect/ParseResult";
import * as Schema from "effect/Schema";
import {
  type GenerationRequest,
  type LanguageModelService,
  type ModelFailure,
  ModelInvalidOutput,
} from "../../ports/language-model.js";

/** The model's answer decoded with core's schema; a shape the schema refuses is ModelInvalidOutput. */
export const ask = <A, I>(
  model: LanguageModelService,
  request: GenerationRequest,
  schema: Schema.Schema<A, I>,
): Effect.Effect<{ readonly value: A; readonly raw: unknown; readonly modelId: string }, ModelFailure> =>
  Effect.flatMap(model.generate(request), (generation) =>
    Either.match(Schema.decodeUnknownEither(schema, { errors: "all" })(generation.output), {
      onLeft: (error) =>
        Effect.fail(
          new ModelInvalidOutput({
            message: `The ${request.task} answer does not match its schema: ${ParseResult.TreeFormatter.formatErrorSync(error).slice(0, 300)}`,
          }),
        ),
      onRight: (value) => Effect.succeed({ value, raw: generation.output, modelId: generation.modelId }),
    }),
  );

/** Says which failure stopped the run, in words fit for the run's `error` (never the provider's text). */
export const describeModelFailure = (failure: ModelFailure): string => {
  switch (failure._tag) {
    case "ModelRateLimited":
      return "the model server kept answering 429 (rate limited)";
    case "ModelTimeout":
      return "the model did not answer in time";
    case "ModelServerFailed":
      return `the model server failed (HTTP ${failure.status})`;
    case "ModelNotFound":
      return `the model server does not know the model "${failure.model.slice(0, 100)}": check GLEANER_MODEL_NAME`;
    case "ModelRefused":
      return "the model refused the request";
    case "ModelInvalidOutput":
      return "the model's answer did not match the requested schema";
  }
};
