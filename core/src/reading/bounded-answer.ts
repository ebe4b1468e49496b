/**
 * An answer from a peer the operator configured (the model server, the search engine) is read up to
 * a bound, like a page: a peer that streams without end or answers gigabytes would otherwise hold
 * them all in the worker's memory until its time limit, and one such answer can end the process.
 */

/** What a search engine's answer may weigh: its results list is a few hundred KiB at most. */
export const SEARCH_ANSWER_MAX_BYTES = 4 * 1024 * 1024;

/**
 * What a model's answer may weigh for `maxOutputTokens`: the envelope, plus generously more bytes
 * per token than any tokenizer emits even when JSON escapes every character.
 */
export const modelAnswerMaxBytes = (maxOutputTokens: number): number => 1024 * 1024 + maxOutputTokens * 64;

/** The answer passed its bound; the body read stops there. */
export class AnswerTooLarge extends Error {
  readonly code = "GLEANER_ANSWER_TOO_LARGE";
  constructor(readonly maxBytes: number) {
    super(`The answer is larger than ${maxBytes} bytes.`);
    this.name = "AnswerTooLarge";
  }
}

/** Is this error (or the error it wraps, as HTTP clients do) an AnswerTooLarge? */
export const isAnswerTooLarge = (error: unknown): boolean =>
  error instanceof AnswerTooLarge || (error instanceof Error && error.cause instanceof AnswerTooLarge);

/**
 * A `fetch` whose answers' bodies fail with AnswerTooLarge past `maxBytes`: refused at once when the
 * declared Content-Length says so, else when the bytes read pass it.
 */
export const boundedFetch =
  (maxBytes: number, fetchImpl: typeof fetch = fetch): typeof fetch =>
  async (input, init) => {
    const response = await fetchImpl(input, init);
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new AnswerTooLarge(maxBytes);
    }
    if (response.body === null) return response;
    let read = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          read += chunk.byteLength;
          if (read > maxBytes) controller.error(new AnswerTooLarge(maxBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
