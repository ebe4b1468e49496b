export { JsdomMainTextLive, readMainText } from "./main-text.js";
export { JsdomParserLive, parseWithJsdom } from "./parser.js";
