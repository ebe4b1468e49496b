import { LanguageModel, MainTextReader, ModelBudget, SearchEngine } from "@gleaner/core";
import { expect } from "chai";
import * as ConfigProvider from "effect/ConfigProvider";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { researchLayer } from "../src/research-plugins.js";

/** Builds the research layer from the given environment and says which services it provides. */
const provided = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.map(Layer.build(researchLayer()), (context) => ({
        model: Context.getOption(context, LanguageModel),
        reader: Context.getOption(context, MainTextReader),
        search: Context.getOption(context, SearchEngine),
        budget: Context.get(context, ModelBudget),
      })),
    ).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))),
  );

describe("research adapters from the environment", () => {
  it("provides nothing when GLEANER_MODEL_URL is unset (research runs answer research_unavailable)", async () => {
    const services = await provided({});
    expect(services.model._tag).to.equal("None");
    expect(services.search._tag).to.equal("None");
  });

  it("provides the OpenAI-compatible model, the main-text reader and SearXNG when configured", async () => {
    const services = await provided({
      GLEANER_MODEL_URL: "http://127.0.0.1:11434/v1",
      GLEANER_MODEL_NAME: "llama3.1:8b",
      GLEANER_MODEL_API_KEY: "sk-secret",
      GLEANER_SEARCH_URL: "http://127.0.0.1:8888",
    });
    expect(services.model._tag === "Some" && services.model.value.modelId).to.equal("llama3.1:8b");
    expect(services.model._tag === "Some" && services.model.value.provider).to.equal("openai-compatible");
    expect(services.reader._tag).to.equal("Some");
    expect(services.search._tag === "Some" && services.search.value.name).to.equal("searxng");
  });

  it("refuses a model URL without GLEANER_MODEL_NAME, naming the variable", async () => {
    const failure = await provided({ GLEANER_MODEL_URL: "http://127.0.0.1:11434/v1" }).then(
      () => expect.fail("started without a model name"),
      (error: unknown) => String(error),
    );
    expect(failure).to.contain("GLEANER_MODEL_NAME");
  });

  it("reads the model's context from GLEANER_MODEL_CONTEXT_TOKENS (8192 tokens when unset)", async () => {
    const model = { GLEANER_MODEL_URL: "http://127.0.0.1:11434/v1", GLEANER_MODEL_NAME: "llama3.1:8b" };
    expect((await provided(model)).budget.contextTokens).to.equal(8192);
    expect((await provided({ ...model, GLEANER_MODEL_CONTEXT_TOKENS: "32768" })).budget.contextTokens).to.equal(32768);
  });
});
