import { storeContract } from "@gleaner/conformance";
import { MemoryStoreLive } from "../src/index.js";

storeContract({ name: "memory store", layer: () => MemoryStoreLive });
