import { type AllowList, bareHost, checkAddress, hostIsAllowed, isIpLiteral } from "@gleaner/core";
import type { DnsLookup } from "./config.js";

/** A target the core policy refuses; the read it belongs to is `unsafe_target`. */
export class UnsafeTargetError extends Error {
  constructor(
    readonly host: string,
    readonly why: string,
  ) {
    super(`refused to connect to ${host}: ${why}`);
  }
}

/** A name with no address at all: `network`, like any other DNS failure. */
export class NoAddressError extends Error {}

/**
 * Resolves a host to the one address a connection will use, refusing it unless every address the
 * name has is allowed by the core policy (a mixed answer is an attack or a misconfiguration). The
 * caller connects to the returned address, so DNS is pinned: no second answer can sneak in.
 */
export const resolveSafeAddress = async (hostname: string, allow: AllowList, lookup: DnsLookup): Promise<string> => {
  const host = bareHost(hostname);
  if (isIpLiteral(host)) {
    const verdict = checkAddress(host, allow);
    if (!verdict.allowed) throw new UnsafeTargetError(host, verdict.why);
    return host;
  }
  const answers = await lookup(host);
  const first = answers[0];
  if (!first) throw new NoAddressError(`${host} has no address`);
  if (!hostIsAllowed(host, allow)) {
    for (const { address } of answers) {
      const verdict = checkAddress(address, allow);
      if (!verdict.allowed) throw new UnsafeTargetError(host, `it resolves to ${verdict.why}`);
    }
  }
  return first.address;
};
