import { lineBreak } from "../../ports/main-text.js";
import type { DatasetColumn } from "../../schema/column.js";
import type { ResearchPlan } from "../../schema/research.js";

/**
 * The prompt templates and the answer schemas. Their version is the trace's `harnessVersion` and
 * the recipe's `promptVersion`: change it whenever a template, a schema or a grounding rule changes.
 */
export const harnessVersion = "gleaner-research/3";
export const maxQueries = 3;
export const maxRowsPerPage = 25;

const entityKinds = ["company", "person", "product", "event", "trend", "other"];
const str = { type: "string" } as const;
const strict = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

/** Strict structured-output schema of the plan (every property required, no extra ones). */
export const planningSchema = strict({
  entityKind: { type: "string", enum: entityKinds },
  queries: { type: "array", items: str, maxItems: maxQueries },
  entityNaming: str,
  columnHints: { type: "array", items: strict({ column: str, hint: str }) },
});

export const extractionSchema = (columns: ReadonlyArray<DatasetColumn>) =>
  strict({
    rows: {
      type: "array",
      maxItems: maxRowsPerPage,
      items: strict({
        entity: strict({
          kind: { type: "string", enum: entityKinds },
          name: str,
          aliases: { type: "array", items: str },
        }),
        cells: {
          type: "array",
          items: strict({
            column: { type: "string", enum: columns.map((c) => c.name) },
            status: { type: "string", enum: ["found", "not_on_page"] },
            value: { type: ["string", "null"] },
            quote: { type: ["string", "null"] },
          }),
        },
      }),
    },
  });

const describeColumns = (columns: ReadonlyArray<DatasetColumn>) =>
  columns.map((c) => `- ${c.name} (${c.type}): ${c.label}${c.description ? ` — ${c.description}` : ""}`).join("\n");

export const planningMessages = (question: string, columns: ReadonlyArray<DatasetColumn>, searching: boolean) => ({
  system:
    "You plan web research that fills a table. Answer only with JSON matching the schema. " +
    "entityKind is what one row of the table is about. entityNaming says what names an entity. " +
    `queries: ${searching ? `at most ${maxQueries} web search queries that find pages answering the question` : "leave empty: the pages to read are given"}. ` +
    "columnHints: one short hint per column about where its value is found.",
  user: `Question: ${question}\nColumns:\n${describeColumns(columns)}`,
});

export const extractionMessages = (
  question: string,
  columns: ReadonlyArray<DatasetColumn>,
  plan: ResearchPlan,
  page: { readonly url: string; readonly title: string | null; readonly text: string },
  part: { readonly part: number; readonly parts: number } = { part: 1, parts: 1 },
) => ({
  system:
    "You extract table rows from one web page. Use only what the page text says. " +
    `Return at most ${maxRowsPerPage} rows, one per ${plan.entityKind} (${plan.entityNaming}). ` +
    "entity.name is the name as the page writes it; aliases are other names the page gives it. " +
    "For every column give status found with the value and a quote copied verbatim from the page that contains the value, " +
    "or status not_on_page with value and quote null. " +
    "Write a number column's value as plain digits (1.6 million as 1600000, 12.400 Mitarbeiter as 12400); " +
    "the quote keeps the page's own writing. Never guess.",
  user:
    `Question: ${question}\nColumns:\n${describeColumns(columns)}\n` +
    `Hints:\n${plan.columnHints.map((h) => `- ${h.column}: ${h.hint}`).join("\n")}\n` +
    `Page: ${page.url}\nTitle: ${page.title ?? ""}\n` +
    (part.parts > 1 ? `(part ${part.part} of ${part.parts} of the page's text)\n` : "") +
    // A line break within a block is shown as the page shows it: a line of its own.
    `---\n${page.text.replaceAll(lineBreak, "\n")}`,
});
