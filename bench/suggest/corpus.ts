// The corpus of bench:suggest: real listing pages saved by others, each with its ground truth.
import { existsSync, readdirSync, readFileSync } from "node:fs";

export interface Truth {
  readonly kind: string;
  readonly provenance: { repository: string; commit: string | null; path: string; licence: string };
  readonly originalUrl: string | null;
  readonly notes: string;
  /** The field naming each record (its title, mostly). */
  readonly key: string;
  /** Every main record of the page, in document order; values as a browser shows them (links as written). */
  readonly records: ReadonlyArray<Readonly<Record<string, string>>>;
}

export interface CorpusPage {
  readonly slug: string;
  readonly html: Buffer;
  readonly truth: Truth;
}

const root = new URL("./corpus/", import.meta.url);

export const corpus = (): CorpusPage[] =>
  readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .filter((slug) => existsSync(new URL(`${slug}/truth.json`, root)))
    .sort()
    .map((slug) => ({
      slug,
      html: readFileSync(new URL(`${slug}/page.html`, root)),
      truth: JSON.parse(readFileSync(new URL(`${slug}/truth.json`, root), "utf8")) as Truth,
    }));
