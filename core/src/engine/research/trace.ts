import type { RunEvidence, RunRecord } from "../../run-domain.js";
import { traceOf } from "../phases.js";
import type { TraceRecorder } from "../trace.js";
import { harnessVersion } from "./prompts.js";

/** The trace as stored (main's traceOf), stamped with the research harness version. */
export const researchTrace = (
  run: RunRecord,
  recorder: TraceRecorder,
  completedAt: string | null,
  last?: Parameters<TraceRecorder["snapshot"]>[0],
): RunEvidence["trace"] => ({ ...traceOf(run, recorder, completedAt, last), harnessVersion });
