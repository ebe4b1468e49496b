import { parse, type Selector } from "css-what";

/**
 * The CSS subset SPEC.md supports: tags, classes, ids, attributes, and the descendant and child
 * combinators. Parsing is css-what's (the parser behind css-select); this file only decides what of
 * the parsed selector is allowed, so every DocumentParser adapter can rely on the same subset.
 */
const describe = (token: Selector): string | null => {
  switch (token.type) {
    case "tag":
      return token.namespace ? `namespaced tag "${token.namespace}|${token.name}"` : null;
    case "attribute":
      return token.namespace ? `namespaced attribute "${token.namespace}|${token.name}"` : null;
    case "descendant":
    case "child":
      return null;
    case "universal":
      return 'the universal selector "*"';
    case "pseudo":
      return `the pseudo-class ":${token.name}"`;
    case "pseudo-element":
      return `the pseudo-element "::${token.name}"`;
    case "adjacent":
      return 'the adjacent sibling combinator "+"';
    case "sibling":
      return 'the general sibling combinator "~"';
    case "parent":
      return 'the parent combinator "<"';
    case "column-combinator":
      return 'the column combinator "||"';
    default:
      return "an unknown selector part";
  }
};

/** Returns null when the selector is within the subset, otherwise a sentence saying what is not. */
export const unsupportedSelectorPart = (selector: string): string | null => {
  let groups: Selector[][];
  try {
    groups = parse(selector);
  } catch (error) {
    return `is not a valid CSS selector (${error instanceof Error ? error.message : String(error)})`;
  }
  if (groups.length !== 1) return 'uses a selector list (","); give one selector';
  const [tokens = []] = groups;
  const first = tokens[0];
  if (first && (first.type === "child" || first.type === "descendant")) {
    return "starts with a combinator; selectors are already relative to their container";
  }
  for (const token of tokens) {
    const problem = describe(token);
    if (problem)
      return `uses ${problem}, which is not supported (supported: tags, classes, ids, attributes, descendant and child combinators)`;
  }
  return null;
};
