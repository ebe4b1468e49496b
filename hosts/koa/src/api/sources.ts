import {
  PreviewRequest,
  PreviewResponse,
  previewSourceRequest,
  SuggestRequest,
  SuggestResponse,
  suggestSources,
} from "@gleaner/core";
import { type Route, route } from "./route.js";

/** Extensions: see what a source gets before creating a dataset, and sources suggested from a page. */
export const sourceRoutes: ReadonlyArray<Route> = [
  route({
    method: "post",
    path: "/v1/sources/preview",
    operationId: "previewSource",
    tag: "Sources",
    summary: "Preview a source",
    description:
      "Reads up to `pages` pages (1-5, default 2) of a source the way a run would (the same fetcher, render mode, " +
      "address guard, robots.txt, proxy, block classification and pagination), extracts and checks them, and " +
      "answers what a run would get: the pages, at most 100 records, each field's fill, the checks, the credit " +
      "estimate when pagination ended within the preview, and warnings naming the part of the source to change. " +
      "The source and columns are validated as `POST /v1/datasets` validates them. It writes nothing and charges " +
      "nothing; an owner may ask for a limited number of previews and suggestions a minute (429 with Retry-After).",
    auth: true,
    body: { schema: PreviewRequest, required: true },
    success: {
      status: 200,
      description: "What a run of the source would get from its first pages.",
      schema: PreviewResponse,
    },
    errors: { 429: ["rate_limited"] },
    handle: ({ owner, body }) => previewSourceRequest(owner.id, body),
  }),
  route({
    method: "post",
    path: "/v1/sources/suggest",
    operationId: "suggestSources",
    tag: "Sources",
    summary: "Suggest sources from a page",
    description:
      "Reads the page at `url` once and finds its repeated records (sibling elements of like structure, main " +
      "content before navigation, menus, footers and sidebars; tables by their rows). Answers at most 5 " +
      "suggestions, best first, each a valid `POST /v1/datasets` body (`name`, `columns`, `source`, and `question` " +
      "when one was given) with the preview `POST /v1/sources/preview` gives it and a sentence on why. Every " +
      "selector comes from the page's markup, in the supported CSS, and is verified by the preview. With `columns`, " +
      "the suggestion reads those columns where the page has them. None when the page cannot be read or repeats " +
      "nothing. Counts as one preview against the owner's limit.",
    auth: true,
    body: { schema: SuggestRequest, required: true },
    success: { status: 200, description: "The page as read and the suggestions, best first.", schema: SuggestResponse },
    errors: { 429: ["rate_limited"] },
    handle: ({ owner, body }) => suggestSources(owner.id, body),
  }),
];
