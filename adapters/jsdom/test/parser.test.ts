import { parseWithJsdom } from "../src/index.js";
import { parserContract } from "./parser-contract.js";

parserContract("jsdom", { parse: parseWithJsdom });
