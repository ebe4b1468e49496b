import { groundingText } from "./grounding.js";

/** A name as a page's text is searched for it: grounding-normalised, lower-cased. */
export const mentionKey = (name: string): string => groundingText(name).toLowerCase();

/** A letter or digit of a script that spaces its words: where a name must not run on into a longer word. */
const spacedWordChar = (c: string | undefined): boolean =>
  c !== undefined &&
  /[\p{L}\p{N}]/u.test(c) &&
  !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u.test(
    c,
  );

/**
 * Where `key` occurs in `text` as whole words ("Harbour" is not in "Harbourside"), a genitive "s"
 * allowed after it ("des Harbour Museums"); scripts written without spaces are matched anywhere.
 */
const occurrences = (text: string, key: string): number[] => {
  const found: number[] = [];
  if (key === "") return found;
  for (let at = text.indexOf(key); at >= 0; at = text.indexOf(key, at + 1)) {
    const end = at + key.length;
    const runsOn = (a: string | undefined, b: string | undefined) => spacedWordChar(a) && spacedWordChar(b);
    const after = text[end] === "s" && !spacedWordChar(text[end + 1]) ? text[end + 1] : text[end];
    if (!runsOn(text[at - 1], key[0]) && !runsOn(key[key.length - 1], after)) found.push(at);
  }
  return found;
};

/**
 * Whether a text (a `mentionKey` of it) names one of `keys` on its own, not only as part of a longer
 * name of another entity on the page (`others`): "Harbour Museum" is not named by "the Harbour Museum
 * Annex opened in 2004" when the Annex is an entity of its own.
 */
export const namesIn = (text: string, keys: ReadonlyArray<string>, others: ReadonlyArray<string>): boolean =>
  keys.some((key) => {
    const longer = others.filter((o) => o.length > key.length && occurrences(o, key).length > 0);
    const inside = longer.flatMap((o) => occurrences(text, o).map((at) => [at, at + o.length] as const));
    return occurrences(text, key).some((at) => !inside.some(([s, e]) => s <= at && at + key.length <= e));
  });
