import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import type { DatasetRecord } from "../domain.js";
import type { Credits } from "../ports/credits.js";
import { RunQueue, type RoutineTick } from "../ports/run-queue.js";
import { Storage } from "../ports/storage.js";
import { completedReason } from "../rules/schedule-state.js";
import { createRun } from "./runs.js";

/**
 * Makes the queue's routine match the dataset: active routines are scheduled, everything else
 * removed. Storage is the source of truth; RoutinesLive re-applies it on every start.
 */
export const syncRoutine = (record: DatasetRecord) =>
  Effect.gen(function* () {
    const queue = yield* RunQueue;
    if (record.scheduleState?.status === "active") {
      yield* queue.setRoutine({ datasetId: record.id, ownerId: record.ownerId, cron: record.scheduleState.cron });
    } else {
      yield* queue.removeRoutine(record.id);
    }
  });

/** Records the outcome of a tick as the routine's reason (null after a run was started). */
const noteTick = (record: DatasetRecord, patch: Partial<NonNullable<DatasetRecord["scheduleState"]>>, now: string) =>
  Effect.gen(function* () {
    const state = record.scheduleState;
    if (!state) return;
    const next: DatasetRecord = {
      ...record,
      scheduleState: { ...state, ...patch },
      ...(patch.status && patch.status !== "active" ? { schedule: null } : {}),
      updatedAt: now,
      revision: record.revision + 1,
    };
    // A concurrent PATCH won: its state stands, the note is dropped.
    yield* (yield* Storage).updateDataset(next).pipe(Effect.catchTag("Conflict", () => Effect.void));
    if (patch.status && patch.status !== "active") yield* syncRoutine(next).pipe(Effect.ignore);
  });

/**
 * One routine tick. A scheduled run is an ordinary run (same checks, same credits). A tick while
 * a run is queued or running, or that the owner cannot pay for, is skipped and its reason kept in
 * scheduleState.reason; the routine stays active. A recipe that can never run completes it.
 */
export const onRoutineTick = (tick: RoutineTick) =>
  Effect.gen(function* () {
    const storage = yield* Storage;
    const found = yield* storage.getDataset(tick.ownerId, tick.datasetId);
    if (
      Option.isNone(found) ||
      found.value.record.scheduleState?.status !== "active" ||
      found.value.record.status !== "active"
    ) {
      return yield* (yield* RunQueue).removeRoutine(tick.datasetId);
    }
    const record = found.value.record;
    const recipe = record.recipes[record.recipes.length - 1];
    if (recipe?.source.version !== 1) {
      return yield* noteTick(record, { status: "completed", reason: completedReason }, tick.firedAt);
    }
    const skipped = (reason: string) =>
      noteTick(record, { reason: `The tick of ${tick.firedAt} was skipped: ${reason}` }, tick.firedAt);
    yield* createRun(tick.ownerId, tick.datasetId, undefined, "schedule").pipe(
      Effect.matchEffect({
        onSuccess: () =>
          record.scheduleState?.reason ? noteTick(record, { reason: null }, tick.firedAt) : Effect.void,
        onFailure: (error) => {
          switch (error._tag) {
            case "Conflict":
              return skipped("a run of the dataset was already queued or running.");
            case "InsufficientCredits":
              return skipped(`the owner has ${error.balance} credits; a run needs at least 1.`);
            case "QueueUnavailable":
              return skipped("the run queue refused the run.");
            default:
              return skipped(error.message);
          }
        },
      }),
    );
  }).pipe(Effect.catchAllCause(Effect.logError));

export type RoutineServices = Storage | Credits | RunQueue;
