export { makeSearxng, type SearxngConfig, SearxngLive } from "./search.js";
