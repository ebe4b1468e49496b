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

/** The visible text of a page, whitespace-collapsed: what a reader would see, roughly. */
export const visibleText = (html: string): string =>
  decodeReferences(html.replace(invisible, " ").replace(tag, " "))
    .replace(/[\s\u00a0]+/g, " ")
    .trim();

const nonSpace = /\S/;
/**
 * A numeric reference that may name no code point (over U+10FFFF): `String.fromCodePoint` throws on
 * it, in `visibleText` as here, so a page holding one takes the full pass and fails as it always did.
 */
const outOfRangeReference = /&#(x[0-9a-f]{6,}|[0-9]{7,});/i;

/**
 * `visibleText(html).length > 0`, without building the text: the markup between tags is looked at in
 * order and the answer is yes at the first piece that shows a character once its references are
 * decoded (references never span a tag, so piece by piece decodes as the whole does). A page shows
 * text early, so this stops long before the end where `visibleText` would rewrite the page four times.
 */
export const hasVisibleText = (html: string): boolean => {
  const shown = html.replace(invisible, " ");
  if (outOfRangeReference.test(shown)) return visibleText(html).length > 0;
  const tags = new RegExp(tag.source, "g");
  let from = 0;
  for (;;) {
    const match = tags.exec(shown);
    const end = match ? match.index : shown.length;
    if (end > from) {
      const piece = shown.slice(from, end);
      if (nonSpace.test(piece) && nonSpace.test(decodeReferences(piece))) return true;
    }
    if (!match) return false;
    from = match.index + match[0].length;
  }
};

/** The `<title>` text, whitespace-collapsed, or "" when there is none. */
export const pageTitle = (html: string): string => {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  return match?.[1] ? visibleText(match[1]) : "";
};

/** A form with a password field: the mark of a login page whatever its URL. */
export const hasPasswordForm = (html: string): boolean => /<input\b[^>]*\btype\s*=\s*["']?password\b/i.test(html);
