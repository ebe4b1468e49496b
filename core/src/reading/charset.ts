import sniffHTMLEncoding from "html-encoding-sniffer";

/**
 * Choosing the character set of an HTML body with WHATWG's encoding sniffing algorithm
 * (html-encoding-sniffer): a byte-order mark, the Content-Type charset, a `<meta charset>` or
 * `<meta http-equiv>` in the first 1024 bytes, else UTF-8. Returns a label TextDecoder accepts.
 */

const decodable = (label: string | undefined): string | null => {
  if (!label) return null;
  try {
    return new TextDecoder(label.trim().toLowerCase()).encoding;
  } catch {
    return null;
  }
};

export const charsetFromContentType = (contentType: string | null | undefined): string | null =>
  decodable(/;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1]);

export const sniffCharset = (body: Uint8Array, contentType: string | null | undefined): string => {
  const transport = charsetFromContentType(contentType);
  const sniffed = sniffHTMLEncoding(body, {
    ...(transport ? { transportLayerEncodingLabel: transport } : {}),
    defaultEncoding: "UTF-8",
  });
  // The WHATWG list names a few encodings (x-user-defined) that TextDecoder does not decode.
  return decodable(sniffed) ?? "utf-8";
};

/** Decodes an HTML body with the sniffed charset; malformed bytes become U+FFFD rather than failing. */
export const decodeHtml = (body: Uint8Array, contentType: string | null | undefined): string =>
  new TextDecoder(sniffCharset(body, contentType)).decode(body);
