import type { SourcePagination } from "../schema/source.js";
import { selectFirst } from "./match.js";
import { documentSelectorFor } from "./selectors.js";
import type { PageNode, PageTree } from "./page-tree.js";

/** Words (and arrows) a "next page" link is written with, in the languages seen most. */
const nextWords =
  /^(?:next|next page|next ›|next »|next >|more|older|older posts|older entries|older articles|load more|›|»|→|>|>>|suivant|suivante|page suivante|weiter|nächste|nächste seite|siguiente|próxima|successivo|volgende|następna|次へ|下一页)$/i;

const isNextLink = (tree: PageTree, node: PageNode): boolean => {
  if (!node.attributes.href || node.attributes.href.startsWith("#") || node.attributes.href.startsWith("javascript:"))
    return false;
  if ((node.attributes.rel ?? "").split(/\s+/).includes("next")) return true;
  const label = `${node.attributes["aria-label"] ?? ""} ${node.attributes.title ?? ""}`.toLowerCase();
  if (/\bnext\b/.test(label)) return true;
  if (nextWords.test(tree.text(node))) return true;
  return node.classes.some((c) => /^(?:next|next-page|nextpage|pagination-next|pager-next)$/i.test(c));
};

/**
 * The page's pagination: a rel=next link (a `<link>` in the head counts), else a link written as
 * "next", "›", "»" or "older", as a next-link selector that finds that link first. None when there
 * is none; a url-pattern needs the last page's markup for its endSelector, which one page cannot show.
 */
export const findPagination = (
  tree: PageTree,
  pageUrl: string,
): { readonly pagination: SourcePagination; readonly why: string } => {
  const anchors = [...(tree.byTag.get("link") ?? []), ...(tree.byTag.get("a") ?? [])];
  for (const anchor of anchors) {
    if (anchor.tag === "link" && !(anchor.attributes.rel ?? "").split(/\s+/).includes("next")) continue;
    if (!isNextLink(tree, anchor)) continue;
    try {
      if (new URL(anchor.attributes.href!, pageUrl).href === pageUrl) continue;
    } catch {
      continue;
    }
    // A link told apart by nothing but its address: the address up to its page number, which stays
    // the same on every page ("news?p=" for news?p=2, then news?p=3).
    const numbered = /^(.*?[?&/;](?:p|page|pg|paged|pagenum|start|offset|from)[=/-]?)\d+/i.exec(
      anchor.attributes.href!,
    );
    const byAddress = numbered ? `${anchor.tag}[href^="${numbered[1]!.replace(/["\\]/g, "\\$&")}"]` : null;
    const selector =
      documentSelectorFor(tree, anchor) ??
      (byAddress !== null && selectFirst(tree, tree.root, byAddress) === anchor ? byAddress : null);
    if (selector === null) continue;
    return { pagination: { kind: "next-link", selector }, why: `pages follow the link ${selector}` };
  }
  return { pagination: { kind: "none" }, why: "no next-page link was found, so one page is read" };
};
