import type { ApiError } from "@gleaner/core";
import * as Cause from "effect/Cause";
import type * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import type * as ManagedRuntime from "effect/ManagedRuntime";
import * as Option from "effect/Option";
import { HttpError, internalError } from "./errors.js";

import type { GleanerServices } from "../layers.js";

export type { GleanerServices };
export type GleanerRuntime = ManagedRuntime.ManagedRuntime<GleanerServices, unknown>;

/**
 * Runs a use case and returns its value, or throws the HttpError its failure maps to. Defects
 * (bugs, crashed drivers) become 500s; their cause is logged by the error middleware.
 */
export const runUseCase = async <A, R>(
  runtime: ManagedRuntime.ManagedRuntime<R, unknown>,
  effect: Effect.Effect<A, ApiError, R>,
): Promise<A> => {
  const exit = await runtime.runPromiseExit(effect);
  if (Exit.isSuccess(exit)) return exit.value;
  const failure = Cause.failureOption(exit.cause);
  if (Option.isSome(failure)) throw HttpError.fromApiError(failure.value as ApiError);
  throw Object.assign(internalError(), { cause: Cause.squash(exit.cause) });
};
