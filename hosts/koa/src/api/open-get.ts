import { type ApiError, authenticateWithBalance, type Owner } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import type { GleanerServices } from "../layers.js";

/** What an authenticated GET knows before its handler runs. */
export interface OpenedGet {
  readonly owner: Owner;
  /** The answer's X-Credits-Remaining. */
  readonly balance: number;
  /** The route's entity tag (null for an untagged route), or why it has none (the dataset is not found). */
  readonly tag: Either.Either<string | null, ApiError>;
}

const untagged = Either.right(null);

/**
 * An authenticated GET's opening, in one run of the runtime (each run costs a fiber; decision 0042):
 * the key's owner with the owner's balance, read in one lookup (decision 0042; Unauthorized fails
 * the whole), and the route's tag. The balance is read before the handler: a GET charges nothing,
 * so it is also the balance after it. A failed tag is returned, not failed, so the error answer
 * still carries the owner's balance. Plain flatMaps: this runs on every authenticated GET, and
 * Effect.all or a generator cost more.
 */
export const openAuthenticatedGet = (
  authorization: string | undefined,
  etag: ((owner: Owner) => Effect.Effect<string, ApiError, GleanerServices>) | null,
): Effect.Effect<OpenedGet, ApiError, GleanerServices> =>
  Effect.flatMap(
    authenticateWithBalance(authorization),
    ({ owner, balance }): Effect.Effect<OpenedGet, ApiError, GleanerServices> =>
      etag === null
        ? Effect.succeed({ owner, balance, tag: untagged })
        : Effect.map(Effect.either(etag(owner)), (tag) => ({ owner, balance, tag })),
  );
