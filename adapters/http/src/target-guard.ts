import { type AllowList, bareHost, type DnsLookup, isIpLiteral, resolveSafeAddress } from "@gleaner/core";
import { buildConnector } from "undici";

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
