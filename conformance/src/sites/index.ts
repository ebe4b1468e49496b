export {
  type Book,
  type BookRating,
  type BookRef,
  BOOKS_JSON_URL,
  findBook,
  loadBooks,
  parsePrice,
} from "./books-data.js";
export { escapeHtml, type RenderMode, shortTitle } from "./books-markup.js";
export {
  BOOKS_SELECTORS,
  booksSiteAddresses,
  type BlockMode,
  type BlockOptions,
  type BooksSite,
  type BooksSiteOptions,
  DEFAULT_ROBOTS,
  type RequestKind,
  type RequestRecord,
  startBooksSite,
} from "./books-site.js";
export { startTableSite, type TableSite } from "./table-site.js";
export { type LoopKind, loopKinds, type LoopSite, startLoopSite } from "./loop-site.js";
export {
  type Company,
  type CompanyColumn,
  companyColumns,
  companyWeb,
  type CompanyWebSpec,
  startCompanyWeb,
  type WebPage,
} from "./company-web.js";
