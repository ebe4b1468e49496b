import * as Effect from "effect/Effect";
import type { RunArtifact } from "../../run-domain.js";
import { newId, type RunId } from "../../schema/ids.js";
import { sha256HexAndSize } from "../../digest.js";
import { truncatedAt } from "../evidence.js";

/**
 * Records one body at the research provider boundary. Over 64 KiB only its hash and size are kept
 * (body null); rows and evidence never depend on artifacts, which expire after 30 days.
 */
export const recordArtifact = (
  runId: RunId,
  kind: Exclude<RunArtifact["kind"], "page">,
  url: string,
  body: string,
  contentType: string,
  now: string,
) =>
  Effect.map(sha256HexAndSize(body), ({ sha256, size }): RunArtifact => {
    const truncated = truncatedAt(size);
    return {
      id: newId(),
      runId,
      kind,
      url,
      contentType,
      sha256,
      size,
      truncated,
      body: truncated ? null : body,
      createdAt: now,
    };
  });
