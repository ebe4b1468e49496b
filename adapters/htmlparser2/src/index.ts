export { Htmlparser2ParserLive, parseWithHtmlparser2 } from "./parser.js";
