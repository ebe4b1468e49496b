import type { RunEvidence, RunRecord } from "../run-domain.js";
import type { DatasetColumn } from "../schema/column.js";
import { DiagnosticStage } from "../schema/diagnostics.js";

/** Stages of SPEC.md's diagnostics, in the order a value travels through a run (the schema's own list). */
export const stages = DiagnosticStage.literals;
export type Stage = (typeof stages)[number];

export type Outcome = "present" | "absent" | "unknown" | "ambiguous";

/** What a run recorded, the whole input of the diagnostics: no store, no clock, no HTTP. */
export interface RunRecording {
  readonly run: Pick<
    RunRecord,
    "id" | "status" | "checks" | "error" | "rowDeltas" | "queuedAt" | "startedAt" | "completedAt" | "chargedPages"
  >;
  /** The columns of the schema the run pinned (the current ones when that is not recorded). */
  readonly columns: ReadonlyArray<DatasetColumn>;
  /** Null while the run has recorded nothing (queued or running). */
  readonly evidence: RunEvidence | null;
}

/** A recorded fact about an entity, at one stage. `failure` marks the facts that explain a loss. */
export interface EntityFact {
  readonly stage: Stage;
  readonly code: string;
  readonly detail: string;
  readonly evidenceId: string;
  readonly failure: boolean;
}

export interface DiagnosticFinding {
  readonly code: string;
  readonly message: string;
}

export const examplesMax = 5;
const unknownsMax = 20;
const textMax = 1000;

/** SPEC.md's limits: finding code 100 and message 1000 chars. */
export const finding = (code: string, message: string): DiagnosticFinding => ({
  code: code.slice(0, 100),
  message: message.slice(0, textMax),
});

/** SPEC.md's limits: at most 20 unknowns of 1000 chars; the last one says how many were left out. */
export const limitUnknowns = (unknowns: ReadonlyArray<string>): string[] => {
  const clipped = unknowns.map((u) => u.slice(0, textMax));
  if (clipped.length <= unknownsMax) return clipped;
  const left = clipped.length - (unknownsMax - 1);
  return [...clipped.slice(0, unknownsMax - 1), `${left} more unknowns were left out.`];
};

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
