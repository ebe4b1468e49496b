import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small web of company pages for research runs, written the way the web writes them: profiles with
 * fact tables, news that calls a company by its bare name, German pages that group thousands with a
 * dot, a directory table of several companies, numbers in words and with scale words, and the traps a
 * reader falls into (a sentence about a plant's share of the staff, a news item with a wrong founding
 * year, a sentence after a table that names no company, a profile that answers 403).
 *
 * Every page records the facts it states correctly, so a run's rows can be scored against what the
 * readable pages really say (`bench:research`), and conformance cases can name what they expect.
 */

export const companyColumns = ["city", "founded", "employees", "revenue"] as const;
export type CompanyColumn = (typeof companyColumns)[number];

export interface Company {
  /** The name as the company writes it, with its legal form ("Nordwerk AG"). */
  readonly name: string;
  /** The name without its legal form, as news writes it ("Nordwerk"). */
  readonly bare: string;
  /** An acronym the profile ties to the name ("CWC"), or null. */
  readonly acronym: string | null;
  readonly facts: Readonly<Record<CompanyColumn, string | number>>;
}

export interface WebPage {
  readonly path: string;
  readonly status: 200 | 403;
  readonly html: string;
  /** What the page states correctly: [company index, column]. A 403 page states nothing readable. */
  readonly states: ReadonlyArray<readonly [number, CompanyColumn]>;
}

export interface CompanyWebSpec {
  readonly companies: ReadonlyArray<Company>;
  readonly pages: ReadonlyArray<WebPage>;
}

const stems = [
  "Nord",
  "Bramble",
  "Harrow",
  "Kestrel",
  "Ostra",
  "Velden",
  "Corran",
  "Ashby",
  "Lumen",
  "Tarn",
  "Wexley",
  "Brisk",
];
const trades = ["werk", " Foods", " Instruments", " Marine", " Textil", " Logistics", " Optics", " Mills"];
const forms = ["AG", "Ltd", "plc", "GmbH", "SE", "Corporation"];
const cities = [
  "Hamburg",
  "Leeds",
  "Bristol",
  "Bremen",
  "Lyon",
  "Utrecht",
  "Graz",
  "Aarhus",
  "Turin",
  "Cork",
  "Basel",
  "Ghent",
];
const plants = ["Kiel", "Derby", "Linz", "Tours"];
const smallNumbers = ["twelve", "forty-two", "ninety", "thirty-five", "sixty-one"];
const smallValues = [12, 42, 90, 35, 61];

const grouped = (n: number, separator: string) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, separator);

const layout = (title: string, body: string, lang = "en") => `<!doctype html>
<html lang="${lang}"><head><title>${title}</title><script>var tracking = "Phantom Holdings AG 99,999 employees";</script></head>
<body><nav><a href="/">Companies</a> <a href="/directory/1">Directory</a> <a href="/about">About</a></nav>
<main><article><h1>${title}</h1>${body}</article></main>
<footer><p>Company Web 2026. Figures as reported by the companies.</p></footer></body></html>`;

const companyAt = (i: number): Company => {
  // Each stem meets a different trade in each round of stems: 96 distinct names, none with a digit.
  const bare = `${stems[i % stems.length]}${trades[(i + Math.floor(i / stems.length)) % trades.length]}`;
  const acronymic = i % 6 === 4;
  const form = acronymic ? "Corporation" : (forms[i % forms.length] as string);
  const name = `${bare} ${form}`;
  const acronym = acronymic
    ? name
        .split(" ")
        .map((w) => w[0])
        .join("")
    : null;
  const small = i % 4 === 1;
  return {
    name,
    bare,
    acronym,
    facts: {
      city: cities[i % cities.length] as string,
      founded: 1900 + ((i * 37) % 115),
      employees: small ? (smallValues[i % smallValues.length] as number) : 1_000 + (((i + 1) * 7_919) % 90_000),
      revenue: (((i * 13) % 90) + 10) * 100_000_000,
    },
  };
};

/** How a page writes a company's headcount: words for a small firm, grouped digits otherwise. */
const headcount = (i: number, c: Company, separator = ",") =>
  i % 4 === 1 ? (smallNumbers[i % smallNumbers.length] as string) : grouped(c.facts.employees as number, separator);

/** Revenue as news writes it: "€2.3bn", "€450 million" or "1.2 billion euros". */
const revenueText = (i: number, c: Company) => {
  const euros = c.facts.revenue as number;
  if (i % 3 === 0) return `€${euros / 1e9}bn`;
  if (i % 3 === 1) return `€${euros / 1e6} million`;
  return `${euros / 1e9} billion euros`;
};

const profile = (i: number, c: Company): WebPage => {
  const states: Array<[number, CompanyColumn]> = [[i, "city"]];
  const named = c.acronym ? `${c.name} (${c.acronym})` : c.name;
  let body = `<p>${named} is headquartered in ${c.facts.city}.</p>`;
  if (i % 3 === 0) {
    // The trap: a plant's share of the staff, said before the company's own headcount.
    const plant = plants[i % plants.length];
    const part = Math.round((c.facts.employees as number) / 6);
    body += `<p>The ${plant} plant hosts ${grouped(part, ",")} of the company's ${grouped(c.facts.employees as number, ",")} employees.</p>`;
  } else {
    body += `<p>${c.acronym ?? c.bare} employs ${headcount(i, c)} people.</p>`;
    states.push([i, "employees"]);
  }
  if (i % 2 === 0) {
    body += `<table><tr><th>Founded</th><td>${c.facts.founded}</td></tr><tr><th>Headquarters</th><td>${c.facts.city}</td></tr></table>`;
  } else {
    body += `<p>${c.bare} was founded in ${c.facts.founded}.</p>`;
  }
  states.push([i, "founded"]);
  const blocked = i % 7 === 6;
  return {
    path: `/c/${slug(c)}`,
    status: blocked ? 403 : 200,
    html: blocked ? "<h1>Forbidden</h1>" : layout(c.name, body),
    states: blocked ? [] : states,
  };
};

/** News calls the company by its bare name; every third item misdates the founding (a conflict). */
const news = (i: number, c: Company): WebPage => {
  const wrongYear = i % 3 === 2;
  const founded = wrongYear ? (c.facts.founded as number) + 1 : c.facts.founded;
  const body =
    `<p>${c.bare} reported revenue of ${revenueText(i, c)} for 2025, up 8% on the year before.</p>` +
    `<p>${c.bare}, founded in ${founded}, expects a steady year.</p>`;
  const states: Array<[number, CompanyColumn]> = [[i, "revenue"]];
  if (!wrongYear) states.push([i, "founded"]);
  return { path: `/news/${slug(c)}`, status: 200, html: layout(`${c.name} reports its year`, body), states };
};

/** German pages group thousands with a dot ("12.400 Mitarbeiter"). */
const german = (i: number, c: Company): WebPage => {
  const body =
    `<p>Die ${c.name} hat ihren Sitz in ${c.facts.city}.</p>` +
    `<p>Das Unternehmen beschäftigt ${grouped(c.facts.employees as number, ".")} Mitarbeiter.</p>`;
  return {
    path: `/de/${slug(c)}`,
    status: 200,
    html: layout(`${c.name}: Unternehmensprofil`, body, "de"),
    states: [
      [i, "city"],
      [i, "employees"],
    ],
  };
};

/** A table of several companies, then a sentence that names none of them. */
const directory = (n: number, members: ReadonlyArray<readonly [number, Company]>): WebPage => {
  const rows = members.map(([, c]) => `<tr><td>${c.name}</td><td>${c.facts.city}</td><td>${c.facts.founded}</td></tr>`);
  const body =
    `<table><tr><th>Company</th><th>City</th><th>Founded</th></tr>${rows.join("")}</table>` +
    "<p>The largest of them employs 40,000 people across Europe.</p>";
  const states = members.flatMap(([i]) => [[i, "city"] as const, [i, "founded"] as const]);
  return { path: `/directory/${n}`, status: 200, html: layout(`Company directory, page ${n}`, body), states };
};

const slug = (c: Company) => c.bare.toLowerCase().replace(/[^a-z0-9]+/g, "-");

/**
 * A web of `count` companies from the `first` (up to 96 in all): a profile each, news for even ones
 * and every third, German pages for every third, a directory of five per page.
 */
export const companyWeb = (count: number, first = 0): CompanyWebSpec => {
  const companies = Array.from({ length: count }, (_, k) => companyAt(first + k));
  const pages: WebPage[] = [];
  // Pages are written from a company's place among all 96 (its variations); they state facts by its place here.
  const local = (page: WebPage): WebPage => ({
    ...page,
    states: page.states.map(([i, column]) => [i - first, column] as const),
  });
  companies.forEach((c, k) => {
    const i = first + k;
    pages.push(local(profile(i, c)));
    if (i % 2 === 0 || i % 3 === 2) pages.push(local(news(i, c)));
    if (i % 3 === 0) pages.push(local(german(i, c)));
  });
  for (let start = 0; start < count; start += 5) {
    pages.push(
      directory(
        start / 5 + 1,
        companies.slice(start, start + 5).map((c, k) => [start + k, c] as const),
      ),
    );
  }
  return { companies, pages };
};

/**
 * What a search engine finds on the company web for a query, by topic: German pages for a German
 * query, news and the directory for one about news or revenue, the profiles otherwise. Each topic
 * fits on one page of results (at most 10) for a web of up to 8 companies.
 */
export const topicOf = (query: string): "de" | "news" | "c" =>
  /unternehmen|mitarbeiter/i.test(query) ? "de" : /news|revenue/i.test(query) ? "news" : "c";

/** The company web on a loopback port; `urls` in page order, `search` answering a query as topicOf says. */
export const startCompanyWeb = async (spec: CompanyWebSpec) => {
  const byPath = new Map(spec.pages.map((p) => [p.path, p]));
  const server = createServer((req, res) => {
    if (req.url === "/robots.txt") return res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\n");
    const page = byPath.get(req.url ?? "");
    if (!page) return res.writeHead(404).end("Not found");
    res.writeHead(page.status, { "content-type": "text/html; charset=utf-8" }).end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    urls: spec.pages.map((p) => `${url}${p.path}`),
    search: (query: string) =>
      spec.pages
        .filter((p) => {
          const topic = topicOf(query);
          return p.path.startsWith(`/${topic}/`) || (topic === "news" && p.path.startsWith("/directory/"));
        })
        .map((p) => ({ url: `${url}${p.path}`, title: p.path, content: "" })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
