// html-encoding-sniffer ships no types; this is the part of its API core uses (README of 7.0.0).
declare module "html-encoding-sniffer" {
  interface SniffOptions {
    readonly transportLayerEncodingLabel?: string;
    readonly defaultEncoding?: string;
    readonly maxPrescanBytes?: number;
    readonly xml?: boolean;
  }
  /** The WHATWG encoding sniffing algorithm: BOM, transport label, `<meta>` prescan, default. */
  const sniffHTMLEncoding: (bytes: Uint8Array, options?: SniffOptions) => string;
  export default sniffHTMLEncoding;
}
