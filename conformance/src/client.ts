import { contractOf } from "./contract.js";

/**
 * A small HTTP client for the suite: real requests over loopback, answers kept whole, and every
 * answer checked against the server's OpenAPI document (contract.ts) unless `contract: false`.
 */
export interface Answer<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  /** X-Credits-Remaining as a number (NaN when absent). */
  readonly credits: number;
}

export interface Client {
  readonly request: (method: string, path: string, options?: RequestOptions) => Promise<Answer>;
  readonly get: (path: string, query?: Record<string, string | number | ReadonlyArray<string>>) => Promise<Answer>;
  readonly post: (path: string, body?: unknown) => Promise<Answer>;
  readonly patch: (path: string, body?: unknown) => Promise<Answer>;
}

export interface RequestOptions {
  readonly body?: unknown;
  /** Sent as is instead of JSON-encoding `body`. */
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
  readonly query?: Record<string, string | number | ReadonlyArray<string>>;
  /** false for requests the document cannot describe (raw protocol probes). */
  readonly contract?: boolean;
}

export const makeClient = (baseUrl: string, key: string | null): Client => {
  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<Answer> => {
    const url = new URL(path, baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
    }
    const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key}` } : {}) };
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(url, { method, headers: { ...headers, ...options.headers }, body: body ?? null });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // keep the text: a non-JSON answer is itself something a test should see
    }
    if (options.contract !== false) {
      (await contractOf(baseUrl)).check({
        method,
        path: url.pathname,
        status: response.status,
        headers: response.headers,
        body: parsed,
      });
    }
    return {
      status: response.status,
      headers: response.headers,
      body: parsed,
      credits: Number(response.headers.get("x-credits-remaining") ?? Number.NaN),
    };
  };
  return {
    request,
    get: (path, query) => request("GET", path, query ? { query } : {}),
    post: (path, body) => request("POST", path, body === undefined ? {} : { body }),
    patch: (path, body) => request("PATCH", path, body === undefined ? {} : { body }),
  };
};
