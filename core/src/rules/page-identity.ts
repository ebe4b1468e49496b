/**
 * A page's identity (decision 0041): its URL as WHATWG URL normalises it (scheme and host lower-cased,
 * default port dropped, dot segments resolved, percent-encoding made canonical), without its fragment,
 * which never reaches the server. The query stays: `?page=2` is another page. Used for pagination loops
 * (before a read and after its redirects) and for the credits a run costs.
 */
export const pageIdentity = (url: string): string => {
  try {
    const parsed = new URL(url);
    parsed.hash = "";
    return parsed.href;
  } catch {
    return url;
  }
};

/** One credit per distinct checked page of an accepted run: the pages a run is charged. */
export const pagesToCharge = (urls: Iterable<string>): number => new Set([...urls].map(pageIdentity)).size;
