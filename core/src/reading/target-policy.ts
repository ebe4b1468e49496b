import ipaddr from "ipaddr.js";
import * as Schema from "effect/Schema";

/**
 * The SSRF target policy every fetcher adapter applies: only public unicast addresses may be read,
 * unless an operator lists a private target in GLEANER_ALLOW_PRIVATE_TARGETS (for local testing and
 * private deployments). Adapters call `checkUrl` before a request and `checkAddress` on every address
 * a name resolves to, at connect time, so a DNS answer cannot smuggle in an internal address.
 */

/** A GLEANER_ALLOW_PRIVATE_TARGETS / GLEANER_PROXY_URLS-style setting that cannot be used. */
export class InvalidReadingConfig extends Schema.TaggedError<InvalidReadingConfig>()("InvalidReadingConfig", {
  setting: Schema.String,
  message: Schema.String,
}) {}

export interface AllowList {
  readonly ranges: ReadonlyArray<readonly [ipaddr.IPv4 | ipaddr.IPv6, number]>;
  /** Lower-case host names; an entry `*.corp.example` allows every subdomain of corp.example. */
  readonly hosts: ReadonlyArray<string>;
}

export const emptyAllowList: AllowList = { ranges: [], hosts: [] };

const hostNamePattern = /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/** Splits an environment value on commas and whitespace; an array passes through unchanged. */
export const splitSetting = (value: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  value === undefined
    ? []
    : (typeof value === "string" ? value.split(/[\s,]+/) : value)
        .map((entry) => entry.trim())
        .filter((entry) => entry.length > 0);

/**
 * Parses GLEANER_ALLOW_PRIVATE_TARGETS: CIDRs (`10.0.0.0/8`, `fd00::/8`), single addresses and host
 * names, separated by commas or whitespace. Empty by default. Throws InvalidReadingConfig on a bad entry
 * so a typo is reported at start-up rather than silently allowing nothing (or everything).
 */
export const parseAllowList = (value: string | ReadonlyArray<string> | undefined): AllowList => {
  const ranges: Array<readonly [ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  const hosts: string[] = [];
  for (const entry of splitSetting(value)) {
    const bare = entry.replace(/^\[(.*)\]$/, "$1");
    if (bare.includes("/")) {
      try {
        ranges.push(ipaddr.parseCIDR(bare));
      } catch {
        throw new InvalidReadingConfig({
          setting: "GLEANER_ALLOW_PRIVATE_TARGETS",
          message: `GLEANER_ALLOW_PRIVATE_TARGETS: "${entry}" is not a valid CIDR`,
        });
      }
    } else if (ipaddr.isValid(bare) && (bare.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(bare))) {
      const address = ipaddr.parse(bare);
      ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
    } else if (hostNamePattern.test(bare.toLowerCase())) {
      hosts.push(bare.toLowerCase().replace(/\.$/, ""));
    } else {
      throw new InvalidReadingConfig({
        setting: "GLEANER_ALLOW_PRIVATE_TARGETS",
        message: `GLEANER_ALLOW_PRIVATE_TARGETS: "${entry}" is neither a CIDR, an IP address nor a host name`,
      });
    }
  }
  return { ranges, hosts };
};

export type TargetVerdict = { readonly allowed: true } | { readonly allowed: false; readonly why: string };
const allowed: TargetVerdict = { allowed: true };

/** Strips IPv6 brackets: WHATWG URL hostnames keep them (`[::1]`). */
export const bareHost = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();

/** True when the host is an IP literal (after URL normalisation, so `0x7f000001` is already 127.0.0.1). */
export const isIpLiteral = (hostname: string): boolean => {
  const host = bareHost(hostname);
  return host.includes(":") ? ipaddr.IPv6.isValid(host) : ipaddr.IPv4.isValidFourPartDecimal(host);
};

const hostIsListed = (host: string, allow: AllowList): boolean =>
  allow.hosts.some((entry) => (entry.startsWith("*.") ? host.endsWith(entry.slice(1)) : host === entry));

/** IPv6 addresses outside 2000::/3 (global unicast) are never public, whatever ipaddr.js's label. */
const globalUnicast6 = ipaddr.parseCIDR("2000::/3");

/**
 * Is an address (the answer of a DNS lookup, or an IP-literal host) a permitted target? IPv4-mapped
 * IPv6 (`::ffff:127.0.0.1`) is unwrapped first so it is judged as the IPv4 address it reaches.
 */
export const checkAddress = (address: string, allow: AllowList = emptyAllowList): TargetVerdict => {
  const bare = bareHost(address);
  if (!ipaddr.isValid(bare)) return { allowed: false, why: `"${address}" is not an IP address` };
  const parsed = ipaddr.process(bare);
  for (const [range, bits] of allow.ranges) {
    if (range.kind() === parsed.kind() && parsed.match(range, bits)) return allowed;
  }
  const label = parsed.range();
  if (label !== "unicast")
    return { allowed: false, why: `${parsed.toString()} is a ${label} address, not a public one` };
  if (parsed.kind() === "ipv6" && !parsed.match(globalUnicast6)) {
    return { allowed: false, why: `${parsed.toString()} is outside the global unicast range 2000::/3` };
  }
  return allowed;
};

/** Does the allow list let this host name through whatever it resolves to? */
export const hostIsAllowed = (hostname: string, allow: AllowList): boolean => hostIsListed(bareHost(hostname), allow);

/**
 * Checks what can be checked of a URL without DNS: the scheme (http/https only) and, for IP-literal
 * hosts, the address itself. Names are checked again at connect time on every resolved address.
 */
export const checkUrl = (url: string | URL, allow: AllowList = emptyAllowList): TargetVerdict => {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch {
    return { allowed: false, why: "it is not a valid URL" };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return { allowed: false, why: `the scheme ${parsed.protocol} is not http or https` };
  }
  const host = bareHost(parsed.hostname);
  if (host.length === 0) return { allowed: false, why: "it has no host" };
  if (hostIsListed(host, allow)) return allowed;
  if (isIpLiteral(host)) return checkAddress(host, allow);
  // Names that are private by definition need no DNS answer to be refused.
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal") || host.endsWith(".local")) {
    return { allowed: false, why: `${host} names a private host` };
  }
  return allowed;
};
