import { readFileSync } from "node:fs";

/** Star rating as written in the second class of `p.star-rating` (`class="star-rating Three"`). */
export type BookRating = "One" | "Two" | "Three" | "Four" | "Five";

/** One record of `conformance/fixtures/books/books.json` (see that folder's README.md). */
export interface Book {
  /** 1-based position in catalogue order (recomputed by the site after removals). */
  readonly position: number;
  /** Catalogue page the book is on (recomputed by the site after removals). */
  readonly page: number;
  /** 1-based index on its page (recomputed by the site after removals). */
  readonly index_on_page: number;
  /** The number after `_` in the slug; catalogue order is book_id descending. */
  readonly book_id: number;
  /** `a-light-in-the-attic_1000`: the detail page is `catalogue/<slug>/index.html`. */
  readonly slug: string;
  /** Full title, as in `h3 > a[title]` (the link text is truncated to four words). */
  readonly title: string;
  /** Price text exactly as shown in `p.price_color`, e.g. `£51.77`. */
  readonly price: string;
  readonly price_gbp: number;
  readonly rating: BookRating;
  readonly rating_num: number;
  /** Listing text, always `In stock`. */
  readonly availability: string;
  /** Detail-page text, `In stock (22 available)`. */
  readonly availability_detail: string;
  readonly stock: number;
  /** 16 hex characters; unique. */
  readonly upc: string;
  readonly category: string;
  readonly category_slug: string;
  readonly category_id: number;
  /** `catalogue/<slug>/index.html`, relative to the site root. */
  readonly product_path: string;
  /** Detail-page image on the real site (https://books.toscrape.com/media/cache/...). */
  readonly image_url: string;
}

/** A book is referred to by its `book_id` (number), or by its `upc` or `slug` (string). */
export type BookRef = number | string;

/** The fixture file, resolved the same way from `src/sites/` (tsx) and `dist/sites/` (compiled). */
export const BOOKS_JSON_URL = new URL("../../fixtures/books/books.json", import.meta.url);

let cached: readonly Book[] | undefined;

/** The 1000 books of the books.toscrape.com sandbox, in catalogue order (a fresh copy each call). */
export function loadBooks(): Book[] {
  if (cached === undefined) {
    const parsed: unknown = JSON.parse(readFileSync(BOOKS_JSON_URL, "utf8"));
    if (!Array.isArray(parsed) || parsed.length === 0) {
      throw new Error(`${BOOKS_JSON_URL.pathname}: expected a non-empty array of books`);
    }
    cached = Object.freeze(parsed.map((b: Book) => Object.freeze({ ...b })));
  }
  return cached.map((b) => ({ ...b }));
}

/** Find a book by book_id, upc or slug; undefined when none matches. */
export function findBook<B extends Book>(books: readonly B[], ref: BookRef): B | undefined {
  if (typeof ref === "number") return books.find((b) => b.book_id === ref);
  return books.find((b) => b.upc === ref || b.slug === ref);
}

/** `£51.77` → 51.77; NaN when the text holds no number. */
export function parsePrice(text: string): number {
  const m = /-?\d+(?:\.\d+)?/.exec(text.replace(/,/g, ""));
  return m === null ? Number.NaN : Number(m[0]);
}
