import * as Context from "effect/Context";
import { lineBreak } from "../../ports/main-text.js";

/**
 * The context window research requests must fit (GLEANER_MODEL_CONTEXT_TOKENS): 8192 tokens by
 * default, what the small local models an owner may run hold. A page longer than one request carries
 * is read in chunks (decision 0014).
 */
export class ModelBudget extends Context.Reference<ModelBudget>()("@gleaner/core/ModelBudget", {
  defaultValue: (): { readonly contextTokens: number } => ({ contextTokens: 8192 }),
}) {}

/** What the prompt around a page takes: instructions, question, columns and hints. */
const promptTokens = 1_000;
/** Characters per token, counted low (text in most European languages runs 3.5-4.5). */
const charsPerToken = 3;

/** Tokens one answer may take within a context: a quarter of it, at most 4096. */
export const outputTokensFor = (contextTokens: number): number => Math.min(4096, Math.floor(contextTokens / 4));

/** Characters of page text one request carries: what the context leaves after the answer and the prompt. */
export const chunkCharsFor = (contextTokens: number): number =>
  Math.max(2_000, (contextTokens - outputTokensFor(contextTokens) - promptTokens) * charsPerToken);

/**
 * A page's text in chunks of at most `maxChars`, cut between lines (the text keeps blocks and table
 * rows on lines of their own), a line longer than a chunk between its `<br>` lines, else words.
 * Nothing is left out.
 */
export const splitIntoChunks = (text: string, maxChars: number): string[] => {
  const chunks: string[] = [];
  let current = "";
  const flush = () => {
    if (current !== "") chunks.push(current);
    current = "";
  };
  for (let line of text.split("\n")) {
    while (line.length > maxChars) {
      flush();
      const broken = line.lastIndexOf(lineBreak, maxChars);
      const cut = broken > maxChars / 2 ? broken : line.lastIndexOf(" ", maxChars);
      const at = cut > maxChars / 2 ? cut : maxChars;
      chunks.push(line.slice(0, at));
      line = line.slice(at).trimStart();
    }
    if (current.length + line.length + 1 > maxChars) flush();
    current = current === "" ? line : `${current}\n${line}`;
  }
  flush();
  return chunks.length === 0 ? [""] : chunks;
};

/** What an extraction is about: the page, and which part of it when it took more than one request. */
export const chunkSubject = (url: string, part: number, parts: number): string =>
  parts === 1 ? url : `${url}#part=${part}/${parts}`;

/** The page and part a chunk subject names (a subject without a part is the whole page, part 1 of 1). */
export const parseChunkSubject = (subject: string): { readonly url: string; readonly part: number } => {
  const match = /^(.*)#part=(\d+)\/\d+$/.exec(subject);
  return match ? { url: match[1]!, part: Number(match[2]) } : { url: subject, part: 1 };
};
