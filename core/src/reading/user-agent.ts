/**
 * How Gleaner names itself. The robots.txt product token is what site owners write in
 * `User-agent:` lines; the header carries a URL where they learn what the bot does and how to opt out.
 */
export const ROBOTS_PRODUCT_TOKEN = "Gleaner";
export const SITE_OWNERS_URL = "https://github.com/gleaner/gleaner/blob/main/docs/site-owners.md";
export const gleanerUserAgent = (version = "0.1", infoUrl = SITE_OWNERS_URL): string =>
  `Mozilla/5.0 (compatible; ${ROBOTS_PRODUCT_TOKEN}/${version}; +${infoUrl})`;
