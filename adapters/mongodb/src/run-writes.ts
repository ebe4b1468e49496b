import type { RunEvidence, RunId, RunRecord } from "@gleaner/core";
import type { ClientSession } from "mongodb";
import { toUuid } from "./bson.js";
import { runToDoc } from "./documents.js";
import { artifactToDoc, evidenceToDoc } from "./row-documents.js";
import type { Collections } from "./schema.js";

// Writes shared by finishRun and acceptRun; always inside their transaction.

/** Replaces the stored run whole (dropping the acceptance's lock field, see accept.ts). */
export const writeRun = async (collections: Collections, session: ClientSession, run: RunRecord): Promise<void> => {
  const { _id, ...fields } = runToDoc(run);
  await collections.runs.replaceOne({ _id }, fields, { session });
};

/** Replaces a run's evidence whole, as memory overwrites its one RunEvidence per run. */
export const writeEvidence = async (
  collections: Collections,
  session: ClientSession,
  runId: RunId,
  evidence: RunEvidence,
): Promise<void> => {
  const { _id, ...fields } = evidenceToDoc(runId, evidence);
  await collections.evidence.replaceOne({ _id }, fields, { session, upsert: true });
  await collections.artifacts.deleteMany({ runId: toUuid(runId) }, { session });
  // The final trace is in run_evidence now; the in-flight copy has served its purpose.
  await collections.traceProgress.deleteOne({ _id }, { session });
  if (evidence.artifacts.length > 0) {
    await collections.artifacts.insertMany(
      evidence.artifacts.map((artifact, position) => artifactToDoc(runId, artifact, position)),
      { session },
    );
  }
};
