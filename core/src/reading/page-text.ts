/**
 * Cheap, DOM-free looks into HTML, enough to classify a response before it is parsed: core must not
 * depend on a DOM library, and a classifier runs on every read, including challenge pages.
 */

const invisible = /<(script|style|noscript|template|svg|head)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;
const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

const tag = /<[^>]*>/g;
const reference = /&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi;

/** Character references decoded (the few named ones a classifier needs; unknown names stay as written). */
const decodeReferences = (text: string): string =>
  text.replace(reference, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X"))
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16) || 32);
    if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10) || 32);
    return entities[name.toLowerCase()] ?? whole;
  });

/**
 * `text.replace(tag, " ")` in linear time. Past the last `>` no tag can start, so that tail is kept as
 * it is instead of the regex scanning it once per `<` (a hostile page of `<`s took minutes).
 */
export const withoutTags = (text: string): string => {
  const end = text.lastIndexOf(">") + 1;
  return text.slice(0, end).replace(tag, " ") + text.slice(end);
};

/** One invisible element or comment, matched where it starts (a match can only start at a `<`). */
const invisibleAt = new RegExp(invisible.source, "iy");
/** Which kind of invisible element (or a comment, `!--`) a `<` could open. */
const invisibleKindAt = /<(?:(script|style|noscript|template|svg|head)\b|!--)/iy;

/**
 * Where the invisible element or comment starting at `at` ends, or -1. A kind that once finds no end
 * never will further on: its first `>` and its closing would lie after this one's. So `hopeless`
 * remembers it, and a hostile page of unclosed `<script>`s or `<!--`s is not scanned once per `<`.
 */
const invisibleEnd = (html: string, at: number, hopeless: Set<string>): number => {
  invisibleKindAt.lastIndex = at;
  const start = invisibleKindAt.exec(html);
  if (!start) return -1;
  const kind = start[1]?.toLowerCase() ?? "!--";
  if (hopeless.has(kind)) return -1;
  invisibleAt.lastIndex = at;
  if (invisibleAt.test(html)) return invisibleAt.lastIndex;
  hopeless.add(kind);
  return -1;
};

/** `html.replace(invisible, " ")` in linear time (invisibleEnd). */
export const withoutInvisible = (html: string): string => {
  const hopeless = new Set<string>();
  let shown = "";
  let from = 0;
  for (let at = html.indexOf("<"); at !== -1; ) {
    const end = invisibleEnd(html, at, hopeless);
    if (end === -1) {
      at = html.indexOf("<", at + 1);
      continue;
    }
    shown += `${html.slice(from, at)} `;
    from = end;
    at = html.indexOf("<", from);
  }
  return shown + html.slice(from);
};

/** The visible text of a page, whitespace-collapsed: what a reader would see, roughly. */
export const visibleText = (html: string): string =>
  decodeReferences(withoutTags(withoutInvisible(html)))
    .replace(/[\s\u00a0]+/g, " ")
    .trim();

const nonSpace = /\S/;
/**
 * A numeric reference that may name no code point (over U+10FFFF): `String.fromCodePoint` throws on
 * it, in `visibleText` as here, so a page holding one takes the full pass and fails as it always did.
 */
const outOfRangeReference = /&#(x[0-9a-f]{6,}|[0-9]{7,});/i;

/**
 * `visibleText(html).length > 0`, without building the text. The page is read once from the start as
 * `html.replace(invisible, " ")` would show it: at each `<` an invisible element or comment that starts
 * there is skipped as one space, exactly the match `replace` takes (its leftmost match after the last
 * one can only start at a `<`, and is the same match wherever the search starts). That shown text is cut
 * at its tags as `/<[^>]*>/g` cuts it (a `<` opens a tag when a `>` follows it in the shown text, and the
 * tag ends at the first one), and the answer is yes at the first piece between tags that shows a
 * character once its references are decoded (references never span a tag, so piece by piece decodes
 * as the whole does). A page shows text early, so this stops near its start, where the whole text
 * would cost a rewrite of the page.
 */
export const hasVisibleText = (html: string): boolean => {
  // A reference over U+10FFFF makes `visibleText` throw; the shown text holds one only if the page does
  // (a skipped element becomes a space, which no reference contains), and such a page takes the full pass.
  if (outOfRangeReference.test(html)) return visibleText(html).length > 0;
  const hopeless = new Set<string>();
  let piece = ""; // the shown text since the last tag ended
  let at = 0;
  let runStart = 0; // where the part of `html` not yet added to `piece` (or `tag`) begins
  let tag: string | null = null; // the shown text since a `<` that may open a tag
  // The first `>` at or after `at`, kept while it lies ahead: a page of `<`s with no `>` is read once,
  // not once per `<`. Once there is none (-1) there is none further on either.
  let gt = -2;
  const shows = (text: string) => nonSpace.test(text) && nonSpace.test(decodeReferences(text));
  while (at < html.length) {
    if (tag !== null && gt !== -1 && gt < at) gt = html.indexOf(">", at);
    const lt = html.indexOf("<", at);
    const next = tag === null ? lt : gt;
    // Within a possible tag, an invisible element may start before its `>`: look at `<`s first.
    const stop = lt !== -1 && (next === -1 || lt < next) ? lt : next;
    if (stop === -1) break;
    if (html.charCodeAt(stop) === 60 /* < */) {
      const end = invisibleEnd(html, stop, hopeless);
      if (end !== -1) {
        const skipped = html.slice(runStart, stop);
        if (tag === null) piece += `${skipped} `;
        else tag += `${skipped} `;
        at = runStart = end;
        continue;
      }
      if (tag === null) {
        piece += html.slice(runStart, stop);
        tag = "";
        runStart = stop;
      }
      at = stop + 1;
      continue;
    }
    // A `>` closes the tag: the piece before it is complete.
    if (shows(piece)) return true;
    piece = "";
    tag = null;
    at = runStart = stop + 1;
  }
  // No more tags: what is left (an unclosed `<` and all after it included) is the last piece.
  const rest = html.slice(runStart);
  return shows(tag === null ? piece + rest : piece + tag + rest);
};

/** The `<title>` text, whitespace-collapsed, or "" when there is none. */
export const pageTitle = (html: string): string => {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  return match?.[1] ? visibleText(match[1]) : "";
};

/** A form with a password field: the mark of a login page whatever its URL. */
export const hasPasswordForm = (html: string): boolean => /<input\b[^>]*\btype\s*=\s*["']?password\b/i.test(html);
