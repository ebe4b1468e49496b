import { type LanguageModelService, ModelRefused } from "@gleaner/core";
import * as Effect from "effect/Effect";
import type { Body } from "./bodies.js";

/**
 * A scripted model for the company web that answers from the page text it is sent, the way a small
 * model does: honest but naive. It names companies written with a legal form (or their bare name
 * when the page drops the form), takes the first sentence that speaks of a column, and copies that
 * sentence's first number. So it falls into what real models fall into: a plant's share of the staff
 * read as the headcount, a sentence naming no company credited to the last one named. With `slips`
 * it also does what a model does when it guesses: now and then it rewords a quote, invents a value
 * the page does not give, or names a company the page never mentions. Every slip is chosen by a hash
 * of what it reads, so the same page gets the same answer.
 */

export const companyQuestion =
  "Which companies are these, where are they based, when were they founded, how many people do they employ and what revenue do they report?";

/** A dataset of companies for the company web's research runs. */
export const companiesDataset = (startUrl: string): Body => ({
  name: `Companies ${globalThis.crypto.randomUUID().slice(0, 8)}`,
  question: companyQuestion,
  columns: [
    { name: "company", type: "string", key: true, label: "Company" },
    { name: "city", type: "string", label: "Headquarters" },
    { name: "founded", type: "number", label: "Founded" },
    { name: "employees", type: "number", label: "Employees" },
    { name: "revenue", type: "number", label: "Revenue (EUR)" },
  ],
  source: {
    version: 1,
    url: startUrl,
    itemSelector: "article",
    fields: ["company", "city", "founded", "employees", "revenue"].map((name) => ({ name, read: {} })),
    identity: { kind: "source-key", field: "company" },
    pagination: { kind: "none" },
    maxPages: 50,
  },
});

export const companyPlan = {
  entityKind: "company",
  queries: ["company profile headquarters", "company news revenue", "Unternehmensprofil Mitarbeiter"],
  entityNaming: "the company's name",
  columnHints: [
    { column: "city", hint: "the city of the headquarters" },
    { column: "founded", hint: "the year the company was founded" },
    { column: "employees", hint: "how many people the company employs" },
    { column: "revenue", hint: "the latest annual revenue in euros" },
  ],
};

/** The words that tell the reader a sentence speaks of a column, by what the column is called. */
const columnCues: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/city|headquarter|based/i, /headquartered in|based in|Headquarters|Sitz in/],
  [/found|year/i, /founded|Founded|gegründet/],
  [/employ|staff|headcount/i, /employ|Employees|staff|beschäftigt|Mitarbeiter/],
  [/revenue|sales|turnover/i, /revenue|Revenue|turnover|Umsatz/],
];

const legalName = /\b((?:[A-Z][\p{L}&'-]* ){1,3})(AG|SE|GmbH|Ltd|plc|Corporation|Group)\b/gu;
const article = /^(?:The|Die|Der|Das|Le|La)\s/;
const numberPhrase =
  /(?:€\s?)?\d[\d.,]*(?:\s?(?:bn|billion|million|mn|k)\b)?|\b(?:twelve|thirty-five|forty-two|sixty-one|ninety)\b/iu;

const hash = (text: string) => {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
};

/** A number phrase as plain digits, as the prompt asks: "€2.3bn" → 2300000000, "8.919" on a German page → 8919. */
const plainDigits = (phrase: string, german: boolean): string => {
  if (/^[a-z-]+$/i.test(phrase)) return phrase; // a number in words is copied as written
  const scale = /billion|bn/i.test(phrase) ? 1e9 : /million|mn/i.test(phrase) ? 1e6 : /k$/i.test(phrase) ? 1e3 : 1;
  const digits = phrase.replace(/[^\d.,]/g, "");
  const plain = german ? digits.replace(/\./g, "").replace(",", ".") : digits.replace(/,/g, "");
  return String(Math.round(Number(plain) * scale));
};

interface AnswerCell {
  readonly column: string;
  readonly status: "found" | "not_on_page";
  readonly value: string | null;
  readonly quote: string | null;
}

interface Named {
  readonly name: string;
  readonly aliases: string[];
  readonly keys: string[];
}

export const readerModel = (
  options: {
    readonly slips?: boolean;
    /** Numbers copied as the page writes them ("8.919", "€2.3bn"), as a model that ignores the prompt's plain digits does. */
    readonly asWritten?: boolean;
  } = {},
): LanguageModelService => ({
  provider: "scripted",
  modelId: options.slips ? "company-reader-slips-1" : "company-reader-1",
  generate: (request) => {
    const usage = { inputTokens: Math.ceil(request.user.length / 4), outputTokens: 200 };
    const modelId = options.slips ? "company-reader-slips-1" : "company-reader-1";
    if (request.task === "planning") return Effect.succeed({ output: companyPlan, modelId, usage });
    const [head, text] = request.user.split("\n---\n");
    if (text === undefined) return Effect.fail(new ModelRefused({ message: "No page text in the request." }));
    const columns = [...(head ?? "").matchAll(/^- (\S+) \((\w+)\)/gm)].map(([, name, type]) => ({
      name: name!,
      type: type!,
    }));
    const title = /^Title: (.*)$/m.exec(head ?? "")?.[1] ?? "";
    // Slips are chosen by the page's path, not its host, so a web on another port gets the same answers.
    const url = /^Page: https?:\/\/[^/]+(.*)$/m.exec(head ?? "")?.[1] ?? "";
    // Companies: written with a legal form in the title or text, named as the text writes them.
    const named: Named[] = [];
    for (const match of `${title}\n${text}`.matchAll(legalName)) {
      const full = `${match[1]}${match[2]}`.replace(article, "");
      const bare = (match[1] as string).replace(article, "").trim();
      if (named.some((n) => n.keys.includes(full))) continue;
      const acronym = new RegExp(`${full.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(([A-Z]{2,6})\\)`).exec(text)?.[1];
      const name = text.includes(full) ? full : bare;
      const aliases = [full, bare, ...(acronym ? [acronym] : [])].filter((a) => a !== name && text.includes(a));
      named.push({ name, aliases, keys: [full, bare, ...(acronym ? [acronym] : [])] });
    }
    // What the page says, in page order: sentences credited to the company they name (or else to the
    // last one named), and table rows read under their header.
    const german = /\b(Mitarbeiter|beschäftigt|Unternehmen)\b/.test(text);
    const number = (phrase: string) => (options.asWritten ? phrase : plainDigits(phrase, german));
    const statements: Array<{ owner: Named; column: string; value: string; quote: string }> = [];
    let last: Named | undefined = named.length === 1 ? named[0] : undefined;
    let header: string[] | null = null;
    const ownerOf = (part: string) => named.find((n) => n.keys.some((k) => part.includes(k)));
    const cueOf = (name: string) => columnCues.find(([about]) => about.test(name))?.[1];
    for (const line of text.split("\n")) {
      const cells = line.split(" | ");
      if (cells.length >= 2 && !/\d/.test(line)) {
        header = cells;
        continue;
      }
      const owner = ownerOf(line);
      if (header && cells.length === header.length && owner) {
        for (const column of columns) {
          const at = header.findIndex(
            (h) => h.toLowerCase() === column.name.toLowerCase() || cueOf(column.name)?.test(h),
          );
          const cell = cells[at]?.trim();
          if (at < 0 || !cell) continue;
          const value = column.type === "number" ? number(cell) : cell;
          statements.push({ owner, column: column.name, value, quote: line.trim() });
        }
        last = owner;
        continue;
      }
      header = null;
      for (const sentence of line.split(/(?<=[.!?])\s+(?=[A-ZÄÖÜ])/)) {
        const credited = ownerOf(sentence) ?? last;
        if (!credited) continue;
        last = credited;
        for (const column of columns) {
          const cue = cueOf(column.name);
          if (!cue?.test(sentence)) continue;
          const value =
            column.type === "number"
              ? ((phrase) => (phrase === undefined ? null : number(phrase.trim())))(numberPhrase.exec(sentence)?.[0])
              : (/(?:in|\|)\s+([A-ZÄÖÜ][\p{L}-]+)/u.exec(sentence.slice(sentence.search(cue)))?.[1] ?? null);
          if (value !== null) statements.push({ owner: credited, column: column.name, value, quote: sentence.trim() });
        }
      }
    }
    const rows = named.map((company) => ({
      entity: { kind: "company", name: company.name, aliases: company.aliases },
      cells: columns.flatMap((column): AnswerCell[] => {
        if (!cueOf(column.name)) return [];
        const said = statements.find((s) => s.owner === company && s.column === column.name);
        const slip = hash(`${url}|${company.name}|${column.name}`);
        if (!said) {
          if (options.slips && slip % 11 === 0) {
            const value = column.type === "number" ? String(1000 + (slip % 5000)) : "Springfield";
            return [{ column: column.name, status: "found", value, quote: `${company.name} ${column.name} ${value}` }];
          }
          return [{ column: column.name, status: "not_on_page", value: null, quote: null }];
        }
        const quote =
          options.slips && slip % 9 === 0
            ? `${said.quote.replace(/ in /, " in the city of ").replace(/\.$/, "")} .`
            : said.quote;
        return [{ column: column.name, status: "found", value: said.value, quote }];
      }),
    }));
    if (options.slips && hash(url) % 5 === 0) {
      rows.push({
        entity: { kind: "company", name: "Phantom Holdings AG", aliases: [] },
        cells: [
          { column: "employees", status: "found", value: "99999", quote: "Phantom Holdings AG employs 99,999 people" },
        ],
      });
    }
    return Effect.succeed({ output: { rows }, modelId, usage });
  },
});
