import { parseWithHtmlparser2 } from "../src/index.js";
import { parserContract } from "@gleaner/conformance";

parserContract("htmlparser2", { parse: parseWithHtmlparser2 });
