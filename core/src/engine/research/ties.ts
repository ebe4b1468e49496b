import { bareNameKey, groundingText, legalFormWords } from "./grounding.js";

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Words a page ties two names of one entity with ("IBM, short for …", "known as", "trading as"). */
const tieWords =
  "(?:,\\s*|\\s+)(?:(?:also|often|commonly|usually|better|widely|now|formerly|simply) )*(?:known as|short for|shortened to|abbreviated(?: to| as)?|called|referred to as|trading as|doing business as|d/b/a|t/a|a\\.k\\.a\\.?|aka|formerly)\\s+";
/** A legal form the page may write after a name before it ties it ("… Corporation (IBM)"). */
const legalTail = `(?:,?\\s+(?:${[...legalFormWords].join("|")})\\.?)*`;
const quoteMark = `["'\u201c\u201d\u2018\u2019]?`;

/** `a` stands tied to `b` on the page: `a (b …)` right after it, or `a, short for b` and the like. */
const tied = (pageLower: string, a: string, b: string): boolean => {
  const [first, second] = [escaped(a), escaped(b)];
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}])${first}${legalTail}(?:\\s*\\(\\s*${quoteMark}|${tieWords}${quoteMark}(?:the\\s+)?)${second}(?![\\p{L}\\p{N}])`,
    "u",
  );
  return pattern.test(pageLower);
};

/**
 * The aliases a page itself ties to an entity's name (issue 34): a legal-form variant of the name
 * ("Apple" of "Apple Inc."), or a name the page writes in parentheses right after it ("International
 * Business Machines Corporation (IBM)") or joins to it with "short for", "known as", "trading as" and
 * the like, either way round. A name that merely appears on the page ("Oracle Corporation competes
 * with IBM") is no alias: it would merge two entities.
 */
export const tiedAliases = (normalisedPage: string, name: string, aliases: ReadonlyArray<string>): string[] => {
  const pageLower = normalisedPage.toLowerCase();
  const own = groundingText(name).toLowerCase();
  return aliases
    .map((a) => a.trim())
    .filter((alias) => {
      const other = groundingText(alias).toLowerCase();
      if (other === "" || other === own || !pageLower.includes(other)) return false;
      if (bareNameKey(alias) !== "" && bareNameKey(alias) === bareNameKey(name)) return true;
      return tied(pageLower, own, other) || tied(pageLower, other, own);
    });
};
