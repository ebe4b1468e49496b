import { parserContract } from "@gleaner/conformance";
import { JsdomParserLive } from "../src/index.js";

parserContract({ name: "jsdom", layer: () => JsdomParserLive });
