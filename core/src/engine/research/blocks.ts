import { headingLine, lineBreak } from "../../ports/main-text.js";
import { mentionKey } from "./mentions.js";

/** A block of a page's cleaned text (one line of it: MainText's format), as mentions compare text. */
export interface Block {
  readonly text: string;
  /** Its lines, broken by `<br>` (`lineBreak`): one when it has none. */
  readonly lines: ReadonlyArray<string>;
  /** The headings whose sections it stands in, outermost first. */
  readonly headings: ReadonlyArray<string>;
}

/**
 * The blocks of a cleaned text. A heading's section runs to the next heading of the same or a higher
 * level; `headingsMarked` is false for text recorded before headings were marked, which has none.
 */
export const blocksOf = (cleanedText: string, headingsMarked: boolean): Block[] => {
  const open: Array<{ readonly level: number; readonly text: string }> = [];
  return cleanedText.split("\n").map((line) => {
    const heading = headingsMarked ? headingLine.exec(line) : null;
    if (heading) {
      const level = heading[1]!.length;
      while (open.length > 0 && open[open.length - 1]!.level >= level) open.pop();
    }
    const block = {
      text: mentionKey(line),
      lines: line.split(lineBreak).map(mentionKey),
      headings: open.map((h) => h.text),
    };
    if (heading) open.push({ level: heading[1]!.length, text: mentionKey(heading[2]!) });
    return block;
  });
};
