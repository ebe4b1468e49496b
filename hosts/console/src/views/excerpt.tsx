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

/** The first attribute in the excerpt that holds the value, with the element that carries it. */
const attributeHolding = (body: HTMLElement, value: unknown, sourceUrl: string | undefined) => {
  for (const element of body.querySelectorAll("*")) {
    for (const attribute of element.attributes) {
      const found = inAttribute(attribute.value, value, sourceUrl);
      if (found) return { element, attribute, found };
    }
  }
  return undefined;
};

/** The text of `body` before and from `element`, as a reader sees it. */
const textAround = (body: HTMLElement, element: Element) => {
  const range = body.ownerDocument.createRange();
  range.selectNodeContents(body);
  range.setEndBefore(element);
  const before = spaced(range.toString()).trimStart();
  range.selectNodeContents(body);
  range.setStartBefore(element);
  return { before, after: spaced(range.toString()).trimEnd() };
};

/**
 * An excerpt as a person reads it: the recorded markup's text (parsed inert, never rendered as
 * markup), with the cell's value marked where it occurs. A value read from an attribute (a link's
 * address, a title) is not in the text, so the attribute is shown where its element starts, as the
 * page wrote it, with the value marked in it.
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
  const held = attributeHolding(body, value, sourceUrl);
  if (!held) return <>{text}</>;
  const { before, after } = textAround(body, held.element);
  const written = held.attribute.value;
  return (
    <>
      {before}
      <span class="attribute">
        {held.attribute.name}="{written.slice(0, held.found.at)}
        <mark>{held.found.s}</mark>
        {written.slice(held.found.at + held.found.s.length)}"
      </span>{" "}
      {after}
    </>
  );
};
