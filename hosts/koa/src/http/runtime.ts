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
 * Runs an effect and returns its exit as soon as it has one: at once when the fiber finished without
 * waiting (a fiber runs synchronously from its start until it first waits, so a read of the memory
 * store finishes here), else when it finishes. The caller that gets an Exit skips a promise and a
 * microtask turn, which an authenticated GET otherwise pays on every request (decision 0042).
 */
export const runExit = <A, E, R>(
  runtime: ManagedRuntime.ManagedRuntime<R, unknown>,
  effect: Effect.Effect<A, E, R>,
): Exit.Exit<A, E | unknown> | Promise<Exit.Exit<A, E | unknown>> => {
  const fiber = runtime.runFork(effect);
  const done = fiber.unsafePoll();
  return done ?? new Promise((resolve) => fiber.addObserver(resolve));
};

/**
 * The value of a use case's exit, or the HttpError its failure maps to, thrown. Defects (bugs,
 * crashed drivers) become 500s; their cause is logged by the error middleware.
 */
export const useCaseValue = <A>(exit: Exit.Exit<A, unknown>): A => {
  if (Exit.isSuccess(exit)) return exit.value;
  const failure = Cause.failureOption(exit.cause);
  if (Option.isSome(failure)) throw HttpError.fromApiError(failure.value as ApiError);
  throw Object.assign(internalError(), { cause: Cause.squash(exit.cause) });
};

/** Runs a use case and returns its value, or throws the HttpError its failure maps to. */
export const runUseCase = async <A, R>(
  runtime: ManagedRuntime.ManagedRuntime<R, unknown>,
  effect: Effect.Effect<A, ApiError, R>,
): Promise<A> => useCaseValue(await runtime.runPromiseExit(effect));
