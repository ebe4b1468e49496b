export { boundedHtmlparser2, Htmlparser2ParserLive, parseWithHtmlparser2 } from "./parser.js";
