import { type AllowList, bareHost, checkAddress, hostIsAllowed, isIpLiteral } from "@gleaner/core";
import { buildConnector } from "undici";
import type { DnsLookup } from "./config.js";

/** Thrown inside the connector when a target is refused; classified as `unsafe_target`. */
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
 * client picks is not ours to bet on).
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

/**
 * An undici connector that checks the address at connect time and pins it: the socket goes to the
 * address that was checked, never to a second DNS answer (no rebinding window). TLS still verifies the
 * certificate against the host name (servername).
 */
export const guardedConnector = (
  allow: AllowList,
  lookup: DnsLookup,
  options: buildConnector.BuildOptions,
): buildConnector.connector => {
  const connect = buildConnector(options);
  return (opts, callback) => {
    const host = bareHost(opts.hostname);
    resolveSafeAddress(host, allow, lookup).then(
      (address) =>
        connect(
          { ...opts, hostname: address, servername: opts.servername || (isIpLiteral(host) ? undefined : host) },
          callback,
        ),
      (error: Error) => callback(error, null),
    );
  };
};
