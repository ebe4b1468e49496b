import type { DatasetColumn } from "../../schema/column.js";
import type { ResearchPlan, ResearchRecipe } from "../../schema/research.js";
import type { Source } from "../../schema/source.js";
import { harnessVersion, maxQueries, maxRowsPerPage } from "./prompts.js";

/** The pin phase: the recipe a research run is held to, stored with the run. Never a secret. */
export const pinRecipe = (input: {
  readonly question: string;
  readonly columns: ReadonlyArray<DatasetColumn>;
  readonly plan: ResearchPlan;
  readonly model: { readonly provider: string; readonly modelId: string };
  readonly searchEngine: string | null;
  readonly source: Source;
}): ResearchRecipe => ({
  version: 1,
  question: input.question,
  columns: input.columns.map((c) => ({
    id: c.id,
    name: c.name,
    label: c.label,
    type: c.type,
    description: c.description ?? null,
  })),
  plan: input.plan,
  model: { provider: input.model.provider, modelId: input.model.modelId },
  searchEngine: input.searchEngine,
  promptVersion: harnessVersion,
  limits: {
    maxPages: input.source.maxPages,
    maxItems: input.source.maxItems,
    maxQueries: input.searchEngine === null ? 0 : maxQueries,
    maxRowsPerPage,
  },
});

/** The queries a search research run sends: its plan's (at most its pinned `limit`), else the question itself. */
export const searchQueries = (plan: ResearchPlan, question: string, limit: number): string[] => {
  const planned = plan.queries.map((q) => q.trim()).filter((q) => q !== "");
  return planned.length > 0 ? planned.slice(0, limit) : [question.slice(0, 300)];
};
