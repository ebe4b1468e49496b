import { suite } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";

suite({ name: "memory", layer: () => MemoryStoreLive });
