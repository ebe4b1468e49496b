import { parseWithHtmlparser2 } from "../src/index.js";
import { parserContract } from "./parser-contract.js";

parserContract("htmlparser2", { parse: parseWithHtmlparser2 });
