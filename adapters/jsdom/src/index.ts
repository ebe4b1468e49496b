export { JsdomParserLive, parseWithJsdom } from "./parser.js";
