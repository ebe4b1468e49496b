/** Request bodies the cases start from: a valid books dataset that each case bends one way. */
export type Body = Record<string, any>;

export const validDataset = (name = `Books ${globalThis.crypto.randomUUID().slice(0, 8)}`): Body => ({
  name,
  question: "Which books are in the catalogue, at what price?",
  columns: [
    { name: "upc", type: "string", key: true, label: "UPC" },
    { name: "title", type: "string" },
    { name: "price", type: "number", description: "Price in GBP" },
    { name: "in_stock", type: "boolean" },
    { name: "notes", type: "string", ownership: "user" },
  ],
  source: {
    version: 1,
    url: "https://books.example/catalogue/page-1.html",
    itemSelector: "article.product_pod",
    fields: [
      { name: "upc", read: { selector: "h3 > a", kind: "attribute", attribute: "href" } },
      { name: "title", read: { selector: "h3 > a", kind: "attribute", attribute: "title" }, required: true },
      { name: "price", read: { selector: "p.price_color" } },
      { name: "in_stock", read: { selector: "p.instock.availability" } },
    ],
    identity: { kind: "source-key", field: "upc" },
    pagination: { kind: "next-link", selector: "ul.pager > li.next > a" },
  },
});

/** A one-page list rendered in Chromium (`li.item > b`), for the browser cases' small fixture pages. */
export const browserListDataset = (label: string, url: string): Body => ({
  name: `${label} ${globalThis.crypto.randomUUID().slice(0, 8)}`,
  columns: [{ name: "name", type: "string", key: true }],
  source: {
    version: 1,
    url,
    render: "browser",
    ignoreRobots: true,
    itemSelector: "li.item",
    fields: [{ name: "name", read: { selector: "b" } }],
    identity: { kind: "source-key", field: "name" },
    pagination: { kind: "none" },
  },
});

/** A deep copy of `body` changed by `edit`. */
export const bend = (body: Body, edit: (b: Body) => void): Body => {
  const copy = structuredClone(body);
  edit(copy);
  return copy;
};
