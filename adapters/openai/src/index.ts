export { makeOpenAiModel, type OpenAiModelConfig, OpenAiModelLive } from "./model.js";
