import { headersFromRecord, type ResponseHeaders } from "@gleaner/core";
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from "node:zlib";
import { type Dispatcher, request } from "undici";

/** The body was larger than allowed: `limit_exceeded`. */
export class BodyTooLargeError extends Error {
  readonly code = "GLEANER_BODY_TOO_LARGE";
}

/** The body could not be decompressed as its Content-Encoding said: `invalid_content`. */
export class BadEncodingError extends Error {
  readonly code = "GLEANER_BAD_ENCODING";
}

export interface Exchange {
  readonly status: number;
  readonly headers: ResponseHeaders;
  /** Reads the whole (decompressed) body, at most `maxBytes`; call at most once. */
  readonly readBody: (maxBytes: number) => Promise<{ readonly bytes: Uint8Array; readonly wireBytes: number }>;
  /** Releases the connection without reading the body. */
  readonly discard: () => void;
}

export interface ExchangeOptions {
  readonly dispatcher: Dispatcher;
  readonly userAgent: string;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly signal: AbortSignal;
  /** Extra request headers (a conditional read's If-None-Match / If-Modified-Since). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One GET, no redirect following (every hop is re-validated by the caller), no automatic decoding. */
export const exchange = async (url: string, options: ExchangeOptions): Promise<Exchange> => {
  const response = await request(url, {
    method: "GET",
    dispatcher: options.dispatcher,
    signal: options.signal,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    headers: {
      "user-agent": options.userAgent,
      accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1",
      "accept-encoding": "gzip, deflate, br",
      "accept-language": "en;q=0.9, *;q=0.5",
      ...options.headers,
    },
  });
  const headers = headersFromRecord(response.headers);
  // Destroying an unread body emits an AbortError; nobody waits on it, so it must not go unhandled.
  const release = () => {
    response.body.on("error", () => {});
    response.body.destroy();
  };
  return {
    status: response.statusCode,
    headers,
    discard: release,
    readBody: async (maxBytes) => {
      const declared = Number(headers.get("content-length") ?? Number.NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        release();
        throw new BodyTooLargeError(`the body is ${declared} bytes, more than the ${maxBytes} allowed`);
      }
      const chunks: Buffer[] = [];
      let wireBytes = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        wireBytes += chunk.length;
        if (wireBytes > maxBytes) {
          release();
          throw new BodyTooLargeError(`the body is more than the ${maxBytes} bytes allowed`);
        }
        chunks.push(chunk);
      }
      return { bytes: decode(Buffer.concat(chunks), headers.get("content-encoding"), maxBytes), wireBytes };
    },
  };
};

/** Undoes Content-Encoding, capping the output so a small compressed bomb cannot fill memory. */
const decode = (raw: Buffer, contentEncoding: string | null, maxBytes: number): Uint8Array => {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  let body: Buffer = raw;
  for (const coding of codings.reverse()) {
    try {
      const limit = { maxOutputLength: maxBytes };
      if (coding === "gzip" || coding === "x-gzip") body = gunzipSync(body, limit);
      else if (coding === "br") body = brotliDecompressSync(body, limit);
      else if (coding === "deflate") body = inflateOrRaw(body, maxBytes);
      else throw new BadEncodingError(`the body uses the unsupported content encoding "${coding}"`);
    } catch (error) {
      if (error instanceof BadEncodingError) throw error;
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
        throw new BodyTooLargeError(`the decompressed body is more than the ${maxBytes} bytes allowed`);
      }
      throw new BadEncodingError(`the body is not valid ${coding} data`);
    }
  }
  return body;
};

/** "deflate" is zlib-wrapped by the standard, raw in some servers: accept both, as browsers do. */
const inflateOrRaw = (body: Buffer, maxBytes: number): Buffer => {
  try {
    return inflateSync(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw error;
    return inflateRawSync(body, { maxOutputLength: maxBytes });
  }
};
