import type { ComponentChildren } from "preact";

/** Collapses whitespace as a reader sees it. */
const spaced = (text: string) => text.replace(/\s+/g, " ");

/** Where the page wrote the number `value`, as written ("50.10", "1,234.5"), if it did. */
const numberIn = (text: string, value: number) => {
  for (const match of text.matchAll(/\d[\d,]*(?:\.\d+)?/g)) {
    if (Number(match[0].replaceAll(",", "")) === value) return { s: match[0], at: match.index };
  }
  return textIn(text, value);
};

const textIn = (text: string, value: unknown) => {
  const s = value === null || value === undefined ? "" : String(value);
  const at = s === "" ? -1 : text.indexOf(s);
  return at >= 0 ? { s, at } : undefined;
};

/** Where an attribute value holds the cell's value: the value itself, or a relative address that resolves to it. */
const inAttribute = (written: string, value: unknown, sourceUrl: string | undefined) => {
  const found = typeof value === "number" ? numberIn(written, value) : textIn(written, value);
  if (found) return found;
  if (typeof value !== "string" || written.trim() === "" || !sourceUrl) return undefined;
  try {
    return new URL(written.trim(), sourceUrl).href === value ? { s: written, at: 0 } : undefined;
  } catch {
    return undefined;
  }
};

/** An attribute as the page wrote it, `name="value"`, with the cell's value marked in it. */
const MarkedAttribute = ({ attribute, found }: { attribute: Attr; found: { s: string; at: number } }) => (
  <span class="attribute">
    {attribute.name}="{attribute.value.slice(0, found.at)}
    <mark>{found.s}</mark>
    {attribute.value.slice(found.at + found.s.length)}"
  </span>
);

/**
 * The excerpt's text in document order with, where an element starts, each of its attributes that
 * holds the value; empty when no attribute does.
 */
const withAttributes = (body: HTMLElement, value: unknown, sourceUrl: string | undefined): ComponentChildren[] => {
  const pieces: ComponentChildren[] = [];
  let text = "";
  let marked = 0;
  const flush = () => {
    if (text !== "") pieces.push(spaced(text));
    text = "";
  };
  const walk = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) text += node.textContent ?? "";
    if (node instanceof Element) {
      for (const attribute of node.attributes) {
        const found = inAttribute(attribute.value, value, sourceUrl);
        if (!found) continue;
        flush();
        pieces.push(<MarkedAttribute key={marked++} attribute={attribute} found={found} />, " ");
      }
    }
    node.childNodes.forEach(walk);
  };
  walk(body);
  flush();
  if (marked === 0) return [];
  const [first, last] = [pieces[0], pieces.at(-1)];
  if (typeof first === "string") pieces[0] = first.trimStart();
  if (typeof last === "string") pieces[pieces.length - 1] = last.trimEnd();
  return pieces;
};

/**
 * An excerpt as a person reads it: the recorded markup's text (parsed inert, never rendered as
 * markup), with the cell's value marked where it occurs. A value read from an attribute (a link's
 * address, a title) is not in the text, so each attribute holding it is shown where its element
 * starts, as the page wrote it, with the value marked in it.
 */
export const Excerpt = ({ html, value, sourceUrl }: { html: string; value: unknown; sourceUrl?: string }) => {
  const body = new DOMParser().parseFromString(html, "text/html").body;
  const text = spaced(body.textContent ?? "").trim();
  const found = typeof value === "number" ? numberIn(text, value) : textIn(text, value);
  if (found) {
    return (
      <>
        {text.slice(0, found.at)}
        <mark>{found.s}</mark>
        {text.slice(found.at + found.s.length)}
      </>
    );
  }
  const pieces = withAttributes(body, value, sourceUrl);
  return pieces.length === 0 ? <>{text}</> : <>{pieces}</>;
};
