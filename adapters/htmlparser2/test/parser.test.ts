import { parserContract } from "@gleaner/conformance";
import { Htmlparser2ParserLive } from "../src/index.js";

parserContract({ name: "htmlparser2", layer: () => Htmlparser2ParserLive });
