import { type AllowList, bareHost, checkAddress, hostIsAllowed, isIpLiteral } from "./target-policy.js";

/** Resolves a host name to every address it has. Injectable so tests never depend on real DNS. */
export type DnsLookup = (
  hostname: string,
) => Promise<ReadonlyArray<{ readonly address: string; readonly family: number }>>;

/** A target the policy refuses; the read it belongs to is `unsafe_target`. */
export class UnsafeTargetError extends Error {
  readonly code = "GLEANER_UNSAFE_TARGET";
  constructor(
    readonly host: string,
    readonly why: string,
  ) {
    super(`refused to connect to ${host}: ${why}`);
  }
}

/** A name with no address at all: `network`, like any other DNS failure. */
export class NoAddressError extends Error {
  readonly code = "ENOTFOUND";
}

/**
 * Resolves a host to the one address a connection will use, refusing it unless every address the
 * name has is allowed (a name with one private answer among public ones is refused too: which one a
 * client picks is not ours to bet on). Callers connect to the returned address, so DNS is pinned.
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
