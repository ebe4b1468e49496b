import type { StorageFailure } from "@gleaner/core";
import * as Effect from "effect/Effect";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

// A COPY … FROM STDIN streamed as its data is encoded (Transaction.copyFrom, decision 0034).

type CopyStream = ReturnType<typeof copyFrom>;

/**
 * pg-copy-streams (7.0.0, pinned) drops its connection when the server refuses the COPY, but still
 * flushes chunks written before the refusal that wait behind a full socket, reading the dropped
 * connection: a TypeError thrown in the socket's 'drain' event, which would end the process. Once the
 * COPY is refused, what is left to flush is discarded instead (the server would discard it too).
 */
const quietOnceRefused = (stream: CopyStream): CopyStream => {
  const internals = stream as unknown as { connection: unknown; flushChunk: (chunk: Buffer) => boolean };
  const flushChunk = internals.flushChunk.bind(stream);
  internals.flushChunk = (chunk) => (internals.connection ? flushChunk(chunk) : true);
  return stream;
};

/** A turn of the event loop: what the socket took meanwhile is sent, what the server said is read. */
const nextTurn = Effect.async<void>((resume) => {
  const turn = setImmediate(() => resume(Effect.void));
  return Effect.sync(() => clearImmediate(turn));
});

export interface StreamedCopy {
  /** Writes every chunk, encoding each as it is asked for, with a turn of I/O after each. */
  readonly write: Effect.Effect<void, StorageFailure>;
  /** The server's answer to the COPY: resolves once it acknowledged the data, rejects with its refusal. */
  readonly answered: Promise<void>;
}

/**
 * A COPY `text` of `chunks` on `client`, submitted by `submit` (the transaction's connection queue:
 * the COPY runs after the statements sent before it; chunks written before the server is ready wait
 * in the stream). `write` stops at the server's refusal (`answered` then says why), and on a chunk
 * that fails to encode (`encodeFailure`) or an interruption it fails the COPY at the server
 * (CopyFail), so the transaction aborts there too. Its first steps cannot be interrupted: a COPY
 * submitted is always ended or failed, never left waiting for data.
 */
export const streamCopy = (
  client: pg.ClientBase,
  submit: (run: () => Promise<void>) => Promise<void>,
  text: string,
  chunks: Iterable<Buffer>,
  encodeFailure: (cause: unknown) => StorageFailure,
): Effect.Effect<Promise<void>, StorageFailure> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      const stream = quietOnceRefused(copyFrom(text));
      let refused = false;
      const byServer = new Promise<void>((resolve, reject) => {
        stream.on("error", (error) => {
          refused = true;
          reject(error);
        });
        // 'finish' comes once the server has acknowledged the data and is ready for more.
        stream.on("finish", resolve);
      });
      byServer.catch(() => undefined);
      const answered = submit(() => {
        client.query(stream);
        return byServer;
      });
      const iterator = chunks[Symbol.iterator]();
      const encodeNext = Effect.try({ try: () => iterator.next(), catch: encodeFailure });
      const writeAll = Effect.gen(function* () {
        for (;;) {
          if (refused) return;
          const next = yield* encodeNext;
          if (next.done) return;
          stream.write(next.value);
          yield* nextTurn;
        }
      });
      return restore(writeAll).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (exit._tag === "Success") stream.end();
            // CopyFail: the server aborts the COPY and the transaction with it.
            else if (!refused) stream.destroy(new Error("The COPY's data could not be encoded; nothing is written."));
          }),
        ),
        Effect.as(answered),
      );
    }),
  );
