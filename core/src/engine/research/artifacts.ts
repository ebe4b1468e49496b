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

/**
 * The media type of a page's cleaned text, naming the page's language when it declared one
 * (`text/plain; lang=de`), so a replay reads the page's numbers as the run did, and saying that its
 * headings are marked (`headingLine`): text recorded before they were marked replays without sections.
 */
export const cleanedTextType = (lang: string | null): string =>
  `text/plain; ${lang === null ? "" : `lang=${lang}; `}headings=marked`;

/** A language tag as a page declares it, kept to what a media type parameter holds (the run and its replay read the same). */
export const pageLanguage = (declared: string | null | undefined): string | null =>
  declared?.replace(/[^A-Za-z0-9-]/g, "").slice(0, 35) || null;

/** The language a cleaned text's media type names (`cleanedTextType`), or null. */
export const langOfCleanedText = (contentType: string): string | null =>
  /;\s*lang=([A-Za-z0-9-]+)/.exec(contentType)?.[1] ?? null;

/** Whether a cleaned text's media type says its headings are marked (`cleanedTextType`). */
export const headingsMarkedIn = (contentType: string): boolean => /;\s*headings=marked\b/.test(contentType);
