/**
 * Choosing the character set of an HTML body, in the order browsers use (WHATWG encoding sniffing,
 * simplified): a byte-order mark, the Content-Type charset, a `<meta>` in the first 1024 bytes, UTF-8.
 * Returns a label TextDecoder accepts.
 */

const supported = (label: string | undefined): string | null => {
  if (!label) return null;
  try {
    return new TextDecoder(label.trim().toLowerCase()).encoding;
  } catch {
    return null;
  }
};

export const charsetFromContentType = (contentType: string | null | undefined): string | null =>
  supported(/;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1]);

export const charsetFromMeta = (head: Uint8Array): string | null => {
  const text = new TextDecoder("latin1").decode(head.subarray(0, 1024));
  const direct = /<meta\b[^>]*\bcharset\s*=\s*["']?\s*([a-z0-9_:.-]+)/i.exec(text)?.[1];
  return supported(direct);
};

export const sniffCharset = (body: Uint8Array, contentType: string | null | undefined): string => {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  return charsetFromContentType(contentType) ?? charsetFromMeta(body) ?? "utf-8";
};

/** Decodes an HTML body with the sniffed charset; malformed bytes become U+FFFD rather than failing. */
export const decodeHtml = (body: Uint8Array, contentType: string | null | undefined): string =>
  new TextDecoder(sniffCharset(body, contentType)).decode(body);
