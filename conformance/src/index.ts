export { type Answer, type Client, makeClient } from "./client.js";
export type { Capability, Owner, Requirement, SuiteContext, Supports, UnderTest } from "./context.js";
export { type Body, bend, browserListDataset, validDataset } from "./bodies.js";
export { booksDataset, columnId, runToEnd, waitForRun } from "./books.js";
export { type AdapterSet, capabilities, suite } from "./suite.js";
export { type ParserUnderTest, parserContract } from "./parser-contract.js";
export { type StoreUnderTest, storeContract } from "./store/contract.js";
export * from "./store/fixtures.js";
export * from "./sites/index.js";
