import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { Credits } from "../ports/credits.js";
import type { OwnerId } from "../schema/ids.js";
import type { Usage } from "../schema/usage.js";
import { isoAt } from "../time.js";

const ledgerWindowMs = 30 * 24 * 60 * 60 * 1000;

/** Endpoint 16: the balance and the ledger of the last 30 days, newest first. */
export const getUsage = (ownerId: OwnerId) =>
  Effect.gen(function* () {
    const credits = yield* Credits;
    const since = isoAt((yield* Clock.currentTimeMillis) - ledgerWindowMs);
    const [balance, entries] = yield* Effect.all([credits.balance(ownerId), credits.ledger(ownerId, since)]);
    return { balance, entries } satisfies Usage;
  });
