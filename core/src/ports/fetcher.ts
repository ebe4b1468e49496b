import * as Context from "effect/Context";
import type * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import type { PageValidators } from "../page-reads.js";
import { ReadFailure } from "../schema/run.js";
import type { ProxyMode, RenderMode } from "../schema/source.js";

/** One page read as a run asks for it. */
export interface FetchRequest {
  readonly url: string;
  readonly render: RenderMode;
  readonly proxy: ProxyMode;
  readonly ignoreRobots: boolean;
  /** For `render: browser`: the run's item selector, a signal that the page has rendered its list. */
  readonly waitForSelector?: string;
  /**
   * The run this read is part of. A fetcher may share state between the reads of one run (the browser
   * fetcher shares one context and guard proxy), never between runs. Absent: nothing is shared.
   */
  readonly runId?: string;
  /**
   * The stored version of the page (decision 0042): a fetcher that can sends its validators as
   * If-None-Match / If-Modified-Since on the hop to `url` (where that read ended), and answers a 304
   * there as a page with `notModified`. Redirect, robots and SSRF rules apply as to any read.
   * Absent, or a fetcher that cannot (the browser): an ordinary read.
   */
  readonly conditional?: PageValidators & { readonly url: string };
  /**
   * The page as the dataset's last accepted run read it (decision 0042): a 2xx answer at `url` whose
   * decoded body is exactly `body` is the page judged then, so a fetcher may return it without judging
   * the body again (challenge, login wall, empty page). Anything else is judged as usual.
   */
  readonly known?: { readonly url: string; readonly body: string };
}

/** A page that was read successfully: never a challenge, a login page or an error page. */
export interface FetchedPage {
  readonly requestedUrl: string;
  /** The URL after redirects; relative links resolve against it. */
  readonly finalUrl: string;
  readonly status: number;
  readonly contentType: string;
  /** The decoded document text. */
  readonly body: string;
  /** Size of the body as received, in bytes. */
  readonly bytes: number;
  /** How many attempts the read took (retries of transient failures included). */
  readonly attempts: number;
  readonly durationMs: number;
  /** What the site sent to identify this version (ETag, Last-Modified), for a later conditional read. */
  readonly validators?: PageValidators;
  /**
   * The site answered 304 Not Modified to the request's `conditional`: the page is the stored one
   * and `body` is empty; the engine takes the stored body and extraction.
   */
  readonly notModified?: boolean;
}

/** A read that did not yield a page, classified by the readFailure reasons of SPEC.md. */
export class ReadFailed extends Schema.TaggedError<ReadFailed>()("ReadFailed", {
  failure: ReadFailure,
  message: Schema.String,
  attempts: Schema.Number,
}) {}

export interface FetcherService {
  readonly read: (request: FetchRequest) => Effect.Effect<FetchedPage, ReadFailed>;
}

/** Reads pages. Adapters: @gleaner/http (`render: static`) and @gleaner/playwright (`render: browser`). */
export class Fetcher extends Context.Tag("@gleaner/core/Fetcher")<Fetcher, FetcherService>() {}
