import { Clock, Effect } from "effect";
import { newId } from "../schema/ids.js";
import { isoAt } from "../time.js";
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

  add(step: Omit<RunTraceStep, "stepId" | "attemptId">): void {
    this.steps.push({ stepId: newId(), attemptId: this.attemptId, ...step });
    if (this.steps.length > maxSteps) {
      this.steps.shift();
      this.dropped++;
    }
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
        startedAt: isoAt(started),
        durationMs: Math.max(0, Math.round(ended - started)),
        ...extra,
      });
      return yield* exit;
    });
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  snapshot(): { steps: RunTraceStep[]; phases: RunTracePhase[]; truncated: boolean } {
    const phases = new Map<ResearchPhase, RunTracePhase>();
    for (const step of this.steps) {
      const ms = step.durationMs ?? 0;
      const current = phases.get(step.phase) ?? { phase: step.phase, count: 0, totalMs: 0, maxMs: 0 };
      phases.set(step.phase, {
        phase: step.phase,
        count: current.count + 1,
        totalMs: current.totalMs + ms,
        maxMs: Math.max(current.maxMs, ms),
      });
    }
    return { steps: [...this.steps], phases: [...phases.values()], truncated: this.truncated };
  }
}
