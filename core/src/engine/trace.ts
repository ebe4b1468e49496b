import { Clock, Effect } from "effect";
import type { ResearchPhase, RunTracePhase, RunTraceStep } from "../schema/run.js";

const maxSteps = 1000;

/**
 * Collects a run's timing events. Each step is recorded once when it finishes (start and finish
 * collapse into one step); the trace keeps the latest 1000 and says when it dropped older ones.
 */
export class TraceRecorder {
  private readonly steps: RunTraceStep[] = [];
  private dropped = 0;
  constructor(readonly attemptId: string) {}

  /** Records a finished step; returns its id (diagnostics cite it as evidence). */
  add(step: Omit<RunTraceStep, "stepId" | "attemptId">): string {
    const stepId = globalThis.crypto.randomUUID();
    this.steps.push({ stepId, attemptId: this.attemptId, ...step });
    if (this.steps.length > maxSteps) {
      this.steps.shift();
      this.dropped++;
    }
    return stepId;
  }

  /** Times an effect as one step of `phase`. */
  timed<A, E, R>(phase: ResearchPhase, effect: Effect.Effect<A, E, R>, extra: Partial<RunTraceStep> = {}) {
    return Effect.gen(this, function* () {
      const started = yield* Clock.currentTimeMillis;
      const exit = yield* Effect.exit(effect);
      const ended = yield* Clock.currentTimeMillis;
      this.add({
        phase,
        status: exit._tag === "Success" ? "succeeded" : "failed",
        startedAt: new Date(started).toISOString(),
        durationMs: Math.max(0, Math.round(ended - started)),
        ...extra,
      });
      return yield* exit;
    });
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  /**
   * The steps and per-phase totals so far. `last` adds a final step to this snapshot only: the
   * accept step, whose status depends on what the store decides (accepted or held).
   */
  snapshot(last?: Omit<RunTraceStep, "stepId" | "attemptId">): {
    steps: RunTraceStep[];
    phases: RunTracePhase[];
    truncated: boolean;
  } {
    const steps = last
      ? [...this.steps, { stepId: globalThis.crypto.randomUUID(), attemptId: this.attemptId, ...last }].slice(-maxSteps)
      : [...this.steps];
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
