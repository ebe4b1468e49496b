/**
 * The books dataset every example creates: link (the key), title and price of each book on the
 * books fixture site at `siteUrl`, following its "next" links. One definition, typed as the API's
 * CreateDatasetRequest, so the HTTP, Promise and Effect examples ask for the same table.
 */
export const booksDataset = (siteUrl: string, name = "Books") => ({
  name,
  columns: [
    { name: "link", type: "string" as const, key: true },
    { name: "title", type: "string" as const },
    { name: "price", type: "number" as const },
  ],
  source: {
    version: 1 as const,
    url: `${siteUrl}/index.html`,
    itemSelector: "article.product_pod",
    fields: [
      { name: "link", read: { selector: "h3 > a", kind: "attribute" as const, attribute: "href" } },
      { name: "title", read: { selector: "h3 > a", kind: "attribute" as const, attribute: "title" }, required: true },
      { name: "price", read: { selector: "p.price_color" }, required: true },
    ],
    identity: { kind: "source-key" as const, field: "link" },
    pagination: { kind: "next-link" as const, selector: "li.next > a" },
    maxPages: 50,
  },
});
