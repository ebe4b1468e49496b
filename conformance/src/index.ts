export { type Answer, type Client, makeClient } from "./client.js";
export type { Owner, SuiteContext, Supports } from "./context.js";
export { type Body, bend, validDataset } from "./bodies.js";
export { booksDataset, columnId, runToEnd, waitForRun } from "./books.js";
export { type AdapterSet, suite } from "./suite.js";
export { parserContract } from "./parser-contract.js";
export { type StoreUnderTest, storeContract } from "./store/contract.js";
export * from "./store/fixtures.js";
export * from "./sites/index.js";
