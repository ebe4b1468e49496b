import { type LanguageModelService, ModelRefused } from "@gleaner/core";
import * as Effect from "effect/Effect";
import type { Body } from "./bodies.js";
import { museumQueries, museums } from "./sites/museum-web.js";

/**
 * A scripted model for the museum web (sites/museum-web.ts) that answers from the page text it is
 * sent, honest but naive as a small model is: it knows the museums' names and credits a line to every
 * name it contains (so a line about the Harbour Museum Annex also to the Harbour Museum), a line naming
 * none to the museums the line before it named (a card's lines, a section under its heading), reads table
 * rows under their header row and "key | value" rows by their key, copies values as the page writes
 * them ("310 000", "3 mai 1901") and straightens the page's curly quotes in its quotes.
 */

export const museumQuestion =
  "Which museums are on the coast, in which city, when did they open and how many visitors do they have?";

export const museumsDataset = (startUrl: string): Body => ({
  name: `Museums ${globalThis.crypto.randomUUID().slice(0, 8)}`,
  question: museumQuestion,
  columns: [
    { name: "museum", type: "string", key: true, label: "Museum" },
    { name: "city", type: "string", label: "City" },
    { name: "opened", type: "number", label: "Opened" },
    { name: "visitors", type: "number", label: "Visitors" },
  ],
  source: {
    version: 1,
    url: startUrl,
    itemSelector: "article",
    fields: ["museum", "city", "opened", "visitors"].map((name) => ({ name, read: {} })),
    identity: { kind: "source-key", field: "museum" },
    pagination: { kind: "none" },
    maxPages: 50,
  },
});

const plan = {
  entityKind: "other",
  queries: [...museumQueries],
  entityNaming: "the museum's name",
  columnHints: [],
};

const cues: Readonly<Record<string, RegExp>> = {
  city: /\bCity\b|(?<!\p{L})(?:in|à) [A-Z]/u,
  opened: /opened|ouvert/i,
  visitors: /visitors|visiteurs/i,
};
const numberPhrase = /\d{1,2}\.? \p{L}+\.? \d{4}|\d{1,3}(?: \d{3})+|\d[\d.,]*/gu;

/** The value a column's cue points at in a text: a city after "in"/"à", else the number phrase nearest the cue. */
const valueNear = (column: string, text: string): string | null => {
  const cue = cues[column]?.exec(text);
  if (!cue) return null;
  if (column === "city") return /(?<!\p{L})(?:in|à) ([A-Z][\p{L}-]+)/u.exec(text)?.[1] ?? null;
  const distance = (m: RegExpMatchArray) =>
    m.index! >= cue.index ? m.index! - (cue.index + cue[0].length) : cue.index - (m.index! + m[0].length);
  const numbers = [...text.matchAll(numberPhrase)].sort((a, b) => distance(a) - distance(b));
  return numbers[0]?.[0] ?? null;
};

const straight = (text: string) => text.replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"');

export const museumReader = (): LanguageModelService => ({
  provider: "scripted",
  modelId: "museum-reader-1",
  generate: (request) => {
    const usage = { inputTokens: Math.ceil(request.user.length / 4), outputTokens: 100 };
    const modelId = "museum-reader-1";
    if (request.task === "planning") return Effect.succeed({ output: plan, modelId, usage });
    const text = request.user.split("\n---\n")[1];
    if (text === undefined) return Effect.fail(new ModelRefused({ message: "No page text in the request." }));
    const namesIn = (part: string) => museums.map((m) => m.name).filter((n) => part.includes(n));
    const onPage = namesIn(text);
    const said = new Map<string, { value: string; quote: string }>();
    const say = (owners: string[], column: string, value: string | null | undefined, quote: string) => {
      for (const owner of owners)
        if (value && !said.has(`${owner}|${column}`)) said.set(`${owner}|${column}`, { value, quote: straight(quote) });
    };
    let header: string[] | null = null;
    let last: string[] = onPage.length === 1 ? onPage : [];
    for (const line of text.split("\n")) {
      const cells = line.split(" | ");
      const owners = namesIn(line).length > 0 ? namesIn(line) : last;
      if (cells.length >= 3 && !/\d/.test(line) && namesIn(line).length === 0) {
        header = cells;
        continue;
      }
      last = owners;
      for (const column of Object.keys(cues)) {
        const cue = cues[column]!;
        const at = header?.findIndex((h) => cue.test(h)) ?? -1;
        if (header && cells.length === header.length && at >= 0) say(owners, column, cells[at], line);
        else if (cells.length === 2 && cue.test(cells[0]!)) say(owners, column, cells[1], line);
        else
          for (const sentence of line.split(/(?<=[.!?])\s+/)) {
            const credited = namesIn(sentence).length > 0 ? namesIn(sentence) : owners;
            say(credited, column, valueNear(column, sentence), sentence);
          }
      }
    }
    const rows = onPage.map((name) => ({
      entity: { kind: "other", name, aliases: [] },
      cells: Object.keys(cues).map((column) => {
        const found = said.get(`${name}|${column}`);
        return found
          ? { column, status: "found", value: found.value, quote: found.quote }
          : { column, status: "not_on_page", value: null, quote: null };
      }),
    }));
    return Effect.succeed({ output: { rows }, modelId, usage });
  },
});
