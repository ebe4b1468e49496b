import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A one-page list of labelled, priced items on loopback, whose redesign drops some prices: what the
 * drift tests (held runs, GLEANER_DRIFT*) run against. `priced` items, from the first, keep theirs.
 */
export const startPricedList = async (items: number) => {
  let priced = items;
  const server = createServer((request, response) => {
    const list = Array.from(
      { length: items },
      (_, i) => `<li class="item"><b>item-${i}</b>${i < priced ? `<i class="price">${i + 1}.50</i>` : ""}</li>`,
    ).join("");
    response.writeHead(request.url === "/robots.txt" ? 404 : 200, { "content-type": "text/html" });
    response.end(`<html><body><ul>${list}</ul></body></html>`);
  }).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/list.html`;
  return {
    url,
    setPriced: (count: number) => void (priced = count),
    /** A POST /v1/datasets body over the list: label (the key) and an optional price. */
    dataset: () => ({
      name: "Priced",
      columns: [
        { name: "label", type: "string", key: true },
        { name: "price", type: "number" },
      ],
      source: {
        version: 1,
        url,
        itemSelector: "li.item",
        fields: [
          { name: "label", read: { selector: "b" } },
          { name: "price", read: { selector: "i.price" } },
        ],
        identity: { kind: "source-key", field: "label" },
        pagination: { kind: "none" },
      },
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

export type PricedList = Awaited<ReturnType<typeof startPricedList>>;
