// The store contract under Node's own test runner instead of mocha: run by node-test-runner.test.ts.
import * as test from "node:test";
import { storeContract, useTestFunctions } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";

useTestFunctions(test);
storeContract({ name: "memory, under node:test", layer: () => MemoryStoreLive });
