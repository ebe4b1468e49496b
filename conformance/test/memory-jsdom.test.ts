import { suite } from "@gleaner/conformance";
import { JsdomParserLive } from "@gleaner/jsdom";
import { MemoryStoreLive } from "@gleaner/memory";

/**
 * The same suite with the jsdom DocumentParser instead of the default htmlparser2 one, so both
 * parsers are held to every extraction rule. Browser reads do not parse with jsdom differently, so
 * the browser cases run once, on the memory set.
 */
suite({ name: "memory + jsdom parser", layer: () => MemoryStoreLive, parser: () => JsdomParserLive });
