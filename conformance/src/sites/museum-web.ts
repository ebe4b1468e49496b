import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback web of museum pages for research runs, written the ways real pages write their facts:
 * a fact table of th/td rows, a list table under a header row, a definition list, inline markup
 * inside a number, no-break spaces in numbers, a page in windows-1252 declared only by its
 * `<meta charset>`, entities and curly quotes, cards whose lines <br> breaks, fact tables in sections
 * under headings naming their museums. Beside them, what a search engine also returns: one
 * page under several URLs (trailing slash, tracking parameters, a redirect chain), a redirect to a
 * refused address, a PDF, JSON, an image, an empty page, one over the size limit. Two museums share
 * a prefix (Harbour Museum, Harbour Museum Annex).
 */

const page = (title: string, body: string, head = "", lang = "en") => `<!doctype html>
<html lang="${lang}"><head>${head}<title>${title}</title></head>
<body><nav><a href="/">Museums of the coast</a> <a href="/visit">Plan a visit</a></nav>
<main><article><h1>${title}</h1>${body}</article></main>
<footer><p>Museums of the coast, a visitor guide. Harbour Museum 999,999 visitors.</p></footer></body></html>`;

/** Harbour Museum's own page: a fact table of th/td rows, its visitors written with a no-break space. */
const harbourProfile = page(
  "Harbour Museum",
  `<p>The Harbour Museum tells the story of the docks, the ships built there and the people who worked them.</p>
<table><tr><th>City</th><td>Portsmouth</td></tr><tr><th>Opened</th><td>12 March 1897</td></tr>
<tr><th>Visitors (2024)</th><td>310&nbsp;000</td></tr></table>`,
);

/** Several museums in one table under a header row; a number split by inline markup. */
const museumList = page(
  "Museums on the coast",
  `<p>Every museum on the coast, with its city, the year it opened and its visitors in 2024.</p>
<table><thead><tr><th>Museum</th><th>City</th><th>Opened</th><th>Visitors</th></tr></thead><tbody>
<tr><td>Harbour Museum</td><td>Portsmouth</td><td>1897</td><td>300,000</td></tr>
<tr><td>Harbour Museum Annex</td><td>Portsmouth</td><td>2004</td><td>40,000</td></tr>
<tr><td>Quay Gallery</td><td>Bristol</td><td>1921</td><td><b>1,2</b>00</td></tr>
</tbody></table>`,
);

/** A definition list: each museum's name, then what the guide says of it. */
const guide = page(
  "A short guide to small museums",
  `<p>Small museums worth the trip, in the order the guide visited them, each with a short note.</p>
<dl><dt>Lantern House</dt><dd>Opened 1958 in Hull; 8&nbsp;400 visitors a year.</dd>
<dt>Quay Gallery</dt><dd>Opened 1921 in Bristol; 1,200 visitors a year.</dd>
<dt>Harbour Museum Annex</dt><dd>Opened 2004 in Portsmouth; 40,000 visitors a year.</dd></dl>`,
);

/** News that repeats the list's figure for the Harbour Museum, in a sentence, with entities and curly quotes. */
const news = page(
  "Coastal museums report a busy year",
  `<p>The Harbour Museum &amp; its Annex had a busy year: the Harbour Museum\u2019s count reached 300,000 visitors, the museum&#8217;s best since 2019.</p>
<p>The Harbour Museum Annex welcomed 40,000 visitors to its \u201cShips in bottles\u201d show.</p>`,
);

/** A French page in windows-1252, declared only by its meta charset: accents, a no-break space, a curly apostrophe. */
const riviere = page(
  "Le Musée de la Rivière",
  `<p>Le Musée de la Rivière, à Nantes, raconte l\u2019histoire des bateaux de l\u2019estuaire.</p>
<p>Le Musée de la Rivière a ouvert le 3 mai 1901. Il a accueilli 12\u00a0500 visiteurs en 2024.</p>`,
  '<meta charset="windows-1252">',
  "fr",
);

/** Cards of several museums, each a block of lines broken by <br>: its name, then its facts. */
const cards = page(
  "Small museums at a glance",
  `<p>Two small museums on the coast, each on a card with the facts a visitor asks first.</p>
<div class="card"><b>Tide Mill Museum</b><br>A working mill in Woodbridge<br>Opened: 1793<br>Visitors: 6&nbsp;100</div>
<div class="card"><b>Lantern House</b><br>A lighthouse keeper's home in Hull<br>Opened: 1958<br>Visitors: 8&nbsp;400</div>`,
);

/** Museums compared in sections, each a fact table under a heading naming its museum. */
const compare = page(
  "Two harbour towns compared",
  `<p>Two museums of the salt and ship trades, compared side by side for a day out: how to get there, when
they opened and how busy they get, so a family can pick the one that suits a rainy afternoon best.</p>
<h2>Harbour Museum</h2><p>The museum stands on the old quay, a short walk from the station, and keeps its
models of ships in the long gallery on the first floor, with a room for school visits beside it.</p><table><tr><th>City</th><td>Portsmouth</td></tr><tr><th>Opened</th><td>1897</td></tr></table>
<h2>Saltworks Museum</h2><p>The museum fills the last boiling house of the salt marsh, where pans of sea
water were boiled dry for three centuries; its guides show how the salt was raked, dried and sold.</p><table><tr><th>City</th><td>Lymington</td></tr><tr><th>Opened</th><td>1911</td></tr>
<tr><th>Visitors</th><td>3&nbsp;300</td></tr></table>`,
);

/** The queries a research plan for the museums asks. */
export const museumQueries = ["coastal museums visitors", "museum annual report"] as const;

const paths = {
  harbour: "/museums/harbour-museum",
  list: "/museums",
  guide: "/guide/small-museums",
  news: "/news/busy-year",
  riviere: "/musees/riviere",
  cards: "/museums/at-a-glance",
  compare: "/museums/compared",
} as const;

/** What the search engine lists, in order: every readable page, duplicates and the unreadable ones. */
const listed = [
  paths.harbour,
  `${paths.harbour}/`,
  `${paths.harbour}?utm_source=newsletter&utm_medium=email`,
  "/go/harbour",
  `${paths.list}?region=south&sort=name`,
  `${paths.list}?sort=name&region=south`,
  paths.guide,
  paths.news,
  paths.riviere,
  paths.cards,
  paths.compare,
  "/out/metadata",
  "/files/annual-report.pdf",
  "/api/museums.json",
  "/img/harbour.png",
  "/museums/closed",
  "/museums/everything",
];

/** The paths that cannot be read, and the read failure each gives. */
export const unreadable: Readonly<Record<string, string>> = {
  "/out/metadata": "unsafe_target",
  "/files/annual-report.pdf": "invalid_content",
  "/api/museums.json": "invalid_content",
  "/img/harbour.png": "invalid_content",
  "/museums/closed": "empty_body",
  "/museums/everything": "limit_exceeded",
};

/**
 * The museums and what a run should write. The Harbour Museum's visitors are 300,000 on two pages and
 * 310 000 on its own page, which the search lists under four URLs: one page, one vote.
 */
export const museums = [
  { name: "Harbour Museum", city: "Portsmouth", opened: 1897, visitors: 300_000 },
  { name: "Harbour Museum Annex", city: "Portsmouth", opened: 2004, visitors: 40_000 },
  { name: "Quay Gallery", city: "Bristol", opened: 1921, visitors: 1_200 },
  { name: "Lantern House", city: "Hull", opened: 1958, visitors: 8_400 },
  { name: "Musée de la Rivière", city: "Nantes", opened: 1901, visitors: 12_500 },
  { name: "Tide Mill Museum", city: "Woodbridge", opened: 1793, visitors: 6_100 },
  { name: "Saltworks Museum", city: "Lymington", opened: 1911, visitors: 3_300 },
] as const;

export interface MuseumWeb {
  readonly url: string;
  /** Search results as SearXNG lists them for a query. */
  readonly search: (query: string) => ReadonlyArray<{ url: string; title: string; content: string }>;
  /** Every path requested, in order. */
  readonly requests: ReadonlyArray<string>;
  readonly close: () => Promise<void>;
}

const overLimitBytes = 11 * 1024 * 1024;

export const startMuseumWeb = async (): Promise<MuseumWeb> => {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    requests.push(url.pathname + url.search);
    const html = (body: string, type = "text/html; charset=utf-8") =>
      res.writeHead(200, { "content-type": type }).end(body);
    const path = url.pathname.replace(/(.)\/$/, "$1");
    switch (path) {
      case "/robots.txt":
        return res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nAllow: /\n");
      case paths.harbour:
        return html(harbourProfile);
      case paths.list:
        return html(museumList);
      case paths.guide:
        return html(guide);
      case paths.news:
        return html(news);
      case paths.cards:
        return html(cards);
      case paths.compare:
        return html(compare);
      case paths.riviere:
        // Latin-1 bytes, and a Content-Type naming no charset: only the meta tag says windows-1252.
        return res
          .writeHead(200, { "content-type": "text/html" })
          .end(Buffer.from(riviere.replace(/\u2019/g, "\x92"), "latin1"));
      case "/go/harbour":
        return res.writeHead(301, { location: "/go/harbour-2" }).end();
      case "/go/harbour-2":
        return res.writeHead(302, { location: paths.harbour }).end();
      case "/out/metadata":
        return res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      case "/files/annual-report.pdf":
        return res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.7\n% Harbour Museum 1897\n");
      case "/api/museums.json":
        return res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ museums: [{ name: "Harbour Museum", visitors: 1 }] }));
      case "/img/harbour.png":
        return res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      case "/museums/closed":
        return html("<!doctype html><html><head><title></title></head><body></body></html>");
      case "/museums/everything":
        return html(page("Every museum", `<p>${"Harbour Museum had 1 visitor. ".repeat(overLimitBytes / 30)}</p>`));
      default:
        return res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    // Ten results a query at most: the first query lists the first eight, the second the rest.
    search: (query) =>
      (query === museumQueries[0] ? listed.slice(0, 8) : listed.slice(8)).map((path) => ({
        url: `${url}${path}`,
        title: path,
        content: "",
      })),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
