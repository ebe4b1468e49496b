/**
 * The only part of a URL a readFailure may carry (SPEC.md `finalUrl`): scheme, host and port. No
 * credentials, path, query or fragment, so failures never leak tokens from URLs into traces.
 */
export const originOnly = (url: string | URL | null | undefined): string | null => {
  if (url === null || url === undefined) return null;
  try {
    const parsed = typeof url === "string" ? new URL(url) : url;
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    return parsed.origin.slice(0, 2048);
  } catch {
    return null;
  }
};
