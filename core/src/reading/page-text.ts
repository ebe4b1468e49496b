/**
 * Cheap, DOM-free looks into HTML, enough to classify a response before it is parsed: core must not
 * depend on a DOM library, and a classifier runs on every read, including challenge pages.
 */

const invisible = /<(script|style|noscript|template|svg|head)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;
const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** The visible text of a page, whitespace-collapsed: what a reader would see, roughly. */
export const visibleText = (html: string): string =>
  html
    .replace(invisible, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith("#x") || name.startsWith("#X"))
        return String.fromCodePoint(Number.parseInt(name.slice(2), 16) || 32);
      if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10) || 32);
      return entities[name.toLowerCase()] ?? whole;
    })
    .replace(/[\s\u00a0]+/g, " ")
    .trim();

/** The `<title>` text, whitespace-collapsed, or "" when there is none. */
export const pageTitle = (html: string): string => {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  return match?.[1] ? visibleText(match[1]) : "";
};

/** A form with a password field: the mark of a login page whatever its URL. */
export const hasPasswordForm = (html: string): boolean => /<input\b[^>]*\btype\s*=\s*["']?password\b/i.test(html);
