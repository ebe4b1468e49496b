import { type components, createGleanerClient, type GleanerClient } from "@gleaner/client";

export type Schemas = components["schemas"];
export type Dataset = Schemas["Dataset"];
export type Column = Schemas["DatasetColumn"];
export type Run = Schemas["Run"];
export type ErrorBody = Schemas["Error"]["error"];

// sessionStorage: the key lives only as long as the tab, and never in a URL, a cookie or a log.
const KEY_ITEM = "gleaner.apiKey";

export const storedKey = (): string | null => sessionStorage.getItem(KEY_ITEM);
export const storeKey = (key: string): void => sessionStorage.setItem(KEY_ITEM, key);
export const forgetKey = (): void => sessionStorage.removeItem(KEY_ITEM);

/** The typed client on this page's own origin (the console is served by the API's host). */
export const clientFor = (apiKey: string): GleanerClient =>
  createGleanerClient({ baseUrl: window.location.origin, apiKey });

/** An API answer that was not a success, with the error body the API sent. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
  }
}

interface Answer<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/** Unwraps an openapi-fetch answer: the data, or an ApiError carrying the documented error body. */
export const unwrap = async <T>(pending: Promise<Answer<T>>): Promise<T> => {
  const { data, error, response } = await pending;
  if (error !== undefined || data === undefined) {
    const body = (error as { error?: ErrorBody } | undefined)?.error;
    throw new ApiError(
      response.status,
      body ?? { code: "internal_error", message: `The server answered ${response.status}.` },
    );
  }
  return data;
};

export const messageOf = (error: unknown): string =>
  error instanceof ApiError
    ? `${error.body.message} (${error.body.code})`
    : error instanceof Error
      ? error.message
      : String(error);
