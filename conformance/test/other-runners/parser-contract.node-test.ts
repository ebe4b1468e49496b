// The parser contract under Node's own test runner instead of mocha: run by node-test-runner.test.ts.
import * as test from "node:test";
import { parserContract, useTestFunctions } from "@gleaner/conformance";
import { JsdomParserLive } from "@gleaner/jsdom";

useTestFunctions(test);
parserContract({ name: "jsdom, under node:test", layer: () => JsdomParserLive });
