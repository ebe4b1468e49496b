import { type LanguageModelService, ModelRefused, type RecordedAnswer } from "@gleaner/core";
import * as Effect from "effect/Effect";
import type { Body } from "./bodies.js";
import type { ResearchSite } from "./sites/research-site.js";

/**
 * Scripted model answers in the replay format (what a run's artifacts convert to), for the
 * research fixture site. They include what a real model gets wrong: a value whose quote is not on
 * the page (Lindqvist's "9 titles") and an entity the page never mentions (Phantom House).
 */
export const question =
  "Which publishers are in the catalogue, where are they based, and how many titles do they have?";

export const plan = {
  entityKind: "company",
  queries: ["publishers catalogue titles city"],
  entityNaming: "the publisher's name",
  columnHints: [
    { column: "city", hint: "where the publisher is based" },
    { column: "titles", hint: "how many titles the catalogue lists" },
  ],
};

const found = (column: string, value: string, quote: string) => ({ column, status: "found", value, quote });
const absent = (column: string) => ({ column, status: "not_on_page", value: null, quote: null });

export const pageOneOutput = {
  rows: [
    {
      entity: { kind: "company", name: "Harbour & Finch Press", aliases: ["H&F Press"] },
      cells: [
        found("publisher", "Harbour & Finch Press", "Harbour & Finch Press, often shortened to H&F Press"),
        found("city", "Bristol", "is based in Bristol, England"),
        found("titles", "14", "The catalogue lists 14 titles from the press"),
      ],
    },
    {
      entity: { kind: "company", name: "Lindqvist Förlag", aliases: [] },
      cells: [
        found("publisher", "Lindqvist Förlag", "Lindqvist Förlag is a family publisher"),
        found("city", "Göteborg", "a family publisher in Göteborg, Sweden"),
        found("titles", "9", "Lindqvist Förlag has 9 titles in the catalogue"),
      ],
    },
    {
      entity: { kind: "company", name: "Phantom House", aliases: [] },
      cells: [found("publisher", "Phantom House", "Phantom House"), absent("city"), found("titles", "99", "99 titles")],
    },
  ],
};

export const pageTwoOutput = {
  rows: [
    {
      entity: { kind: "company", name: "H&F Press", aliases: [] },
      cells: [
        found("publisher", "H&F Press", "H&F Press also publishes translated fiction"),
        found("city", "Bristol", "from its office in Bristol"),
        absent("titles"),
      ],
    },
    {
      entity: { kind: "company", name: "Kestrel Books", aliases: [] },
      cells: [
        found("publisher", "Kestrel Books", "Kestrel Books, based in Leeds"),
        found("city", "Leeds", "Kestrel Books, based in Leeds"),
        found("titles", "22", "has 22 titles in the catalogue"),
      ],
    },
  ],
};

/** Answers for both pages of the open site and the first page of the blocked one. */
export const scriptFor = (site: ResearchSite): RecordedAnswer[] => [
  { task: "planning", subject: null, output: plan },
  { task: "extraction", subject: site.page(1), output: pageOneOutput },
  { task: "extraction", subject: site.page(2), output: pageTwoOutput },
  { task: "extraction", subject: site.page(1, true), output: pageOneOutput },
];

/** The same, but the model times out on the second page. */
export const failingScriptFor = (site: ResearchSite): RecordedAnswer[] => [
  { task: "planning", subject: null, output: plan },
  { task: "extraction", subject: site.page(1), output: pageOneOutput },
  { task: "extraction", subject: site.page(2), failure: "timeout" },
];

export const publishersDataset = (site: ResearchSite, blocked = false): Body => ({
  name: `Publishers ${globalThis.crypto.randomUUID().slice(0, 8)}`,
  question,
  columns: [
    { name: "publisher", type: "string", key: true, label: "Publisher" },
    { name: "city", type: "string", label: "City" },
    { name: "titles", type: "number", label: "Titles in the catalogue" },
    { name: "notes", type: "string", ownership: "user" },
  ],
  source: {
    version: 1,
    url: site.page(1, blocked),
    itemSelector: "article p",
    fields: [
      { name: "publisher", read: {} },
      { name: "city", read: {} },
      { name: "titles", read: {} },
    ],
    identity: { kind: "source-key", field: "publisher" },
    pagination: { kind: "next-link", selector: "a.next" },
  },
});

/**
 * A model that answers from the page text it is sent, as a real one does: the plan, then one row per
 * "Publisher N Press is based in Town N. The catalogue lists K titles" it finds in the request's page
 * text (at most 25), quoting the text. It sees only what a request carries, so a page read in chunks
 * is answered chunk by chunk.
 */
export const textReadingModel = (): LanguageModelService => ({
  provider: "scripted",
  modelId: "text-reading-1",
  generate: (request) => {
    if (request.task === "planning") {
      return Effect.succeed({ output: plan, modelId: "text-reading-1", usage: { inputTokens: 0, outputTokens: 0 } });
    }
    const text = request.user.split("\n---\n")[1];
    if (text === undefined) return Effect.fail(new ModelRefused({ message: "No page text in the request." }));
    const rows = [...text.matchAll(/(Publisher \d+ Press) is based in (Town \d+)\. The catalogue lists (\d+) titles/g)]
      .slice(0, 25)
      .map(([sentence, name, city, titles]) => ({
        entity: { kind: "company", name: name!, aliases: [] },
        cells: [
          found("publisher", name!, `${name} is based in`),
          found("city", city!, `is based in ${city}`),
          found("titles", titles!, sentence!.slice(sentence!.indexOf("The catalogue"))),
        ],
      }));
    return Effect.succeed({ output: { rows }, modelId: "text-reading-1", usage: { inputTokens: 0, outputTokens: 0 } });
  },
});
