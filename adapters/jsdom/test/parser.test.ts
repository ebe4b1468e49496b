import { parseWithJsdom } from "../src/index.js";
import { parserContract } from "@gleaner/conformance";

parserContract("jsdom", { parse: parseWithJsdom });
