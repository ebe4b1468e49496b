// The small shop site of the engine tests: two listing pages, three books, a next link.

export const site = "https://shop.example";
export const item = (n: number, price: string) =>
  `<article><a href="/b/${n}">Book ${n}</a><p class="price">${price}</p></article>`;
export const page = (items: string, next: string | null) =>
  `<html><body>${items}${next ? `<li class="next"><a href="${next}">next</a></li>` : ""}</body></html>`;
export const goodPages: Record<string, string> = {
  [`${site}/p1`]: page(item(1, "£1.00") + item(2, "£2.00"), "/p2"),
  [`${site}/p2`]: page(item(3, "£3.00"), null),
};

export const body = {
  name: "shop",
  columns: [
    { name: "link", type: "string", key: true },
    { name: "title", type: "string" },
    { name: "price", type: "number" },
    { name: "isbn", type: "string" },
  ],
  source: {
    version: 1,
    url: `${site}/p1`,
    itemSelector: "article",
    fields: [
      { name: "link", read: { selector: "a", kind: "attribute", attribute: "href" } },
      { name: "title", read: { selector: "a" } },
      { name: "price", read: { selector: "p.price" } },
      { name: "isbn", read: { selector: "span.isbn" } },
    ],
    identity: { kind: "source-key", field: "link" },
    pagination: { kind: "next-link", selector: "li.next > a" },
  },
};
