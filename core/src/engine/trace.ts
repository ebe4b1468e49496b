import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { newId } from "../schema/ids.js";
import { isoAt } from "../time.js";
import { type ResearchPhase, type RunTracePhase, RunTraceStep } from "../schema/run.js";

const maxSteps = 1000;
/**
 * Progress is published at most this often (and at every phase change), so a run stays cheap to
 * watch, and not at all in a run's first such interval: a run that short is over before a watcher
 * would see it, and its final trace is written with its outcome. Short runs are most runs, so this
 * saves each of them its progress writes.
 */
export const publishEveryMs = 250;

export type TraceSnapshot = { steps: RunTraceStep[]; phases: RunTracePhase[]; truncated: boolean };

/**
 * A step with its keys in RunTraceStep's order and no undefined ones, however the engine spread it:
 * a stored trace then decodes as it is (storedDecoder's fast path, decision 0042), and reads of a
 * run's trace or diagnostics skip Effect's decoder.
 */
const stepKeys = Object.keys(RunTraceStep.fields) as ReadonlyArray<keyof RunTraceStep>;
const inStepOrder = (step: RunTraceStep): RunTraceStep => {
  const ordered: Record<string, unknown> = {};
  for (const key of stepKeys) if (step[key] !== undefined) ordered[key] = step[key];
  return ordered as RunTraceStep;
};

/**
 * Collects a run's timing events. Each step is recorded once when it finishes (start and finish
 * collapse into one step); the trace keeps the latest 1000 and says when it dropped older ones.
 * Steps in progress are part of the snapshot with status `running`; when a publisher is given,
 * snapshots are handed to it as the run works (throttled), so the trace can be watched live.
 */
export class TraceRecorder {
  private readonly steps: RunTraceStep[] = [];
  private readonly inFlight = new Map<string, RunTraceStep>();
  private dropped = 0;
  private firstEventAt: number | null = null;
  private lastPublishedAt = 0;
  private lastPublishedPhase: ResearchPhase | null = null;
  constructor(
    readonly attemptId: string,
    private readonly publish?: (snapshot: TraceSnapshot) => Effect.Effect<void>,
  ) {}

  /** Hands the current snapshot to the publisher when due; a failing publisher never fails the run. */
  private progress(phase: ResearchPhase) {
    return Effect.gen(this, function* () {
      if (!this.publish) return;
      const now = yield* Clock.currentTimeMillis;
      this.firstEventAt ??= now;
      if (now - this.firstEventAt < publishEveryMs) return;
      if (phase === this.lastPublishedPhase && now - this.lastPublishedAt < publishEveryMs) return;
      this.lastPublishedAt = now;
      this.lastPublishedPhase = phase;
      yield* this.publish(this.snapshot()).pipe(Effect.catchAllCause(() => Effect.void));
    });
  }

  /** Records a finished step; returns its id (diagnostics cite it as evidence). */
  add(step: Omit<RunTraceStep, "stepId" | "attemptId">): string {
    const stepId = newId();
    this.steps.push(inStepOrder({ stepId, attemptId: this.attemptId, ...step }));
    if (this.steps.length > maxSteps) {
      this.steps.shift();
      this.dropped++;
    }
    return stepId;
  }

  /** Times an effect as one step of `phase`. */
  /** Marks a step as in progress (published as `running`); `end` it before `add`ing its result. */
  begin(phase: ResearchPhase, extra: Partial<RunTraceStep> = {}) {
    return Effect.gen(this, function* () {
      const startedAt = isoAt(yield* Clock.currentTimeMillis);
      const key = newId();
      this.inFlight.set(
        key,
        inStepOrder({ stepId: key, attemptId: this.attemptId, phase, status: "running", startedAt, ...extra }),
      );
      yield* this.progress(phase);
      return key;
    });
  }

  end(key: string): void {
    this.inFlight.delete(key);
  }

  timed<A, E, R>(phase: ResearchPhase, effect: Effect.Effect<A, E, R>, extra: Partial<RunTraceStep> = {}) {
    return Effect.gen(this, function* () {
      const started = yield* Clock.currentTimeMillis;
      const startedAt = isoAt(started);
      const key = yield* this.begin(phase, extra);
      const exit = yield* Effect.exit(effect);
      const ended = yield* Clock.currentTimeMillis;
      this.end(key);
      this.add({
        phase,
        status: exit._tag === "Success" ? "succeeded" : "failed",
        startedAt,
        durationMs: Math.max(0, Math.round(ended - started)),
        ...extra,
      });
      yield* this.progress(phase);
      return yield* exit;
    });
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  /**
   * The steps (finished ones, then those in progress as `running`) and per-phase totals so far.
   * `last` adds a final step to this snapshot only: the accept step, whose status depends on what
   * the store decides (accepted or held).
   */
  snapshot(last?: Omit<RunTraceStep, "stepId" | "attemptId">): TraceSnapshot {
    const final = last ? [inStepOrder({ stepId: newId(), attemptId: this.attemptId, ...last })] : [];
    const steps = [...this.steps, ...this.inFlight.values(), ...final].slice(-maxSteps);
    const phases = new Map<ResearchPhase, RunTracePhase>();
    for (const step of steps) {
      const ms = step.durationMs ?? 0;
      const current = phases.get(step.phase) ?? { phase: step.phase, count: 0, totalMs: 0, maxMs: 0 };
      phases.set(step.phase, {
        phase: step.phase,
        count: current.count + 1,
        totalMs: current.totalMs + ms,
        maxMs: Math.max(current.maxMs, ms),
      });
    }
    const truncated = this.truncated || (last !== undefined && this.steps.length >= maxSteps);
    return { steps, phases: [...phases.values()], truncated };
  }
}
