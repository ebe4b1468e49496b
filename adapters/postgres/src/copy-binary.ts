// COPY … FROM STDIN WITH (FORMAT binary): what an acceptance inserts in bulk (revisions, observations),
// written straight into one buffer. The text format (used until decision 0029) needs every backslash of the JSON
// doubled and the whole text encoded to UTF-8 again, two more passes over ~3 MB of a 1000-row run that
// cost more than JSON.stringify itself (decision 0029). In the binary format a json column is its text
// as it is (json's binary form is its text), so each value is stringified once and written once.
// Each tuple is a field count, then each field as its byte length (-1 for NULL) and its bytes.

const signature = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
/** Milliseconds from the Unix epoch to PostgreSQL's (2000-01-01T00:00:00Z). */
const epochOffsetMs = 946_684_800_000;
const textOid = 25;
/**
 * Each hex digit's value by character code, 255 for any other character below 128 (Buffer's "hex"
 * write cost ~1.4 µs per uuid, 6 per revision, and a regular expression checking it first ~0.2 µs).
 */
const notHex = 255;
const hexDigit = new Uint8Array(128).fill(notHex);
for (let digit = 0; digit < 16; digit++) {
  hexDigit["0123456789abcdef".charCodeAt(digit)] = digit;
  hexDigit["0123456789ABCDEF".charCodeAt(digit)] = digit;
}
const dash = 45;
/** 1 at each count of hex digits a uuid may have a dash after (8, 12, 16, 20). */
const dashMayFollow = new Uint8Array(33);
for (const digits of [8, 12, 16, 20]) dashMayFollow[digits] = 1;

export interface CopyBinaryWriter {
  /** Starts a tuple of `fields` fields; each field is then written in the table's column order. */
  readonly tuple: (fields: number) => void;
  readonly uuid: (value: string | null) => void;
  readonly int4: (value: number) => void;
  readonly int8: (value: number) => void;
  readonly text: (value: string | null) => void;
  /** A json column: the value's JSON text; null and undefined are NULL. */
  readonly json: (value: unknown) => void;
  /** A timestamptz from an ISO 8601 string (microseconds kept when it has them). */
  readonly timestamptz: (iso: string | null) => void;
  readonly textArray: (values: ReadonlyArray<string>) => void;
  /** Where the next field starts in what the next `take()` or `end()` answers: with it, what a run of fields was written as. */
  readonly offset: () => number;
  /** Fields written before, as they were (e.g. `end().subarray(a, b)` of another COPY of the same types). */
  readonly raw: (fields: Uint8Array) => void;
  /**
   * The bytes written since the last `take` (the signature and flags first), so a COPY can go to the
   * server while the rest is encoded. Later fields go to a new buffer: what was taken stays as it is.
   */
  readonly take: () => Buffer;
  /** The bytes written since the last `take` and the trailer: with no `take`, the whole stream. */
  readonly end: () => Buffer;
}

/** A writer for one COPY's data; throws on a value its column's type cannot hold (a bad uuid or date). */
export const copyBinaryWriter = (sizeHint = 64 * 1024): CopyBinaryWriter => {
  const size = Math.max(1024, sizeHint);
  let buffer = Buffer.allocUnsafe(size);
  let at = 0;
  const room = (bytes: number) => {
    if (at + bytes <= buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(buffer.length * 2, at + bytes));
    buffer.copy(grown, 0, 0, at);
    buffer = grown;
  };
  // Integers are written byte by byte: Buffer's writeInt*BE check their arguments on every call,
  // which was ~5 ms of a cold first run's ~20,000 field lengths (a byte store truncates by itself).
  /** A 32-bit integer (or its two's complement) at `offset`, big-endian. */
  const put32 = (value: number, offset: number) => {
    buffer[offset] = value >>> 24;
    buffer[offset + 1] = value >>> 16;
    buffer[offset + 2] = value >>> 8;
    buffer[offset + 3] = value;
  };
  const int16 = (value: number) => {
    room(2);
    buffer[at] = value >>> 8;
    buffer[at + 1] = value;
    at += 2;
  };
  const int32 = (value: number) => {
    room(4);
    put32(value, at);
    at += 4;
  };
  const nullField = () => int32(-1);
  /** A UTF-8 string with its byte length before it (UTF-16 code units take at most 3 bytes each). */
  const string = (value: string) => {
    room(4 + value.length * 3);
    const lengthAt = at;
    const written = buffer.write(value, at + 4, "utf8");
    put32(written, lengthAt);
    at += 4 + written;
  };
  /** An int8 field of a safe integer: its high and low 32 bits (two's complement when negative). */
  const int64 = (value: number) => {
    if (!Number.isSafeInteger(value)) throw new Error(`COPY: ${value} is not a safe integer.`);
    room(12);
    const high = Math.floor(value / 4294967296);
    put32(8, at);
    put32(high, at + 4);
    put32(value - high * 4294967296, at + 8);
    at += 12;
  };
  let lastTime: string | null = null;
  let lastTimeMicros = 0;
  room(signature.length + 8);
  at += signature.copy(buffer, at);
  int32(0); // flags: no OIDs
  int32(0); // header extension length
  return {
    tuple: int16,
    // A uuid's 32 hex digits, in either case, each group of them but the last followed by at most one
    // dash (what PostgreSQL's uuid input takes in its common forms), as its 16 bytes: checked while
    // they are written.
    uuid: (value) => {
      if (value === null) return nullField();
      room(20);
      const start = at;
      put32(16, at);
      at += 4;
      let digits = 0;
      for (let i = 0; i < value.length; i++) {
        const code = value.charCodeAt(i);
        if (code === dash && dashMayFollow[digits] === 1 && value.charCodeAt(i - 1) !== dash) continue;
        const digit = code < 128 ? hexDigit[code]! : notHex;
        if (digit === notHex || digits === 32) {
          at = start;
          throw new Error(`COPY: ${JSON.stringify(value)} is not a uuid.`);
        }
        if (digits % 2 === 0) buffer[at] = digit << 4;
        else buffer[at++]! |= digit;
        digits++;
      }
      if (digits !== 32) {
        at = start;
        throw new Error(`COPY: ${JSON.stringify(value)} is not a uuid.`);
      }
    },
    int4: (value) => {
      if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647) {
        throw new Error(`COPY: ${value} is not a 32-bit integer.`);
      }
      int32(4);
      int32(value);
    },
    int8: int64,
    text: (value) => (value === null ? nullField() : string(value)),
    json: (value) => (value === null || value === undefined ? nullField() : string(JSON.stringify(value))),
    timestamptz: (iso) => {
      if (iso === null) return nullField();
      // A run's revisions and rows share a handful of times: each distinct one is read once.
      if (iso !== lastTime) {
        // Date.parse keeps milliseconds only: the fraction is read here, to the microsecond.
        const fraction = /\.(\d+)/.exec(iso);
        const seconds = Date.parse(fraction ? iso.replace(fraction[0], "") : iso);
        if (Number.isNaN(seconds)) throw new Error(`COPY: ${JSON.stringify(iso)} is not an ISO 8601 time.`);
        const micros = Number((fraction?.[1] ?? "").padEnd(6, "0").slice(0, 6));
        lastTimeMicros = (seconds - epochOffsetMs) * 1000 + micros;
        lastTime = iso;
      }
      int64(lastTimeMicros);
    },
    textArray: (values) => {
      // One dimension (none when empty), no NULL elements, elements of type text, lower bound 1.
      const lengthAt = at;
      int32(0);
      const start = at;
      int32(values.length === 0 ? 0 : 1);
      int32(0);
      int32(textOid);
      if (values.length > 0) {
        int32(values.length);
        int32(1);
        for (const value of values) string(value);
      }
      put32(at - start, lengthAt);
    },
    offset: () => at,
    raw: (fields) => {
      room(fields.length);
      buffer.set(fields, at);
      at += fields.length;
    },
    take: () => {
      const taken = buffer.subarray(0, at);
      buffer = Buffer.allocUnsafe(size);
      at = 0;
      return taken;
    },
    end: () => {
      int16(-1);
      return buffer.subarray(0, at);
    },
  };
};
