import type { ProxyMode } from "../schema/source.js";
import { InvalidReadingConfig, splitSetting } from "./target-policy.js";

/**
 * Proxy routing shared by fetcher adapters. GLEANER_PROXY_URLS lists http/https proxies (credentials
 * allowed in the URL; they are never logged: only `redacted` may appear in messages). A source's
 * `proxy` decides the route: `never` direct; `always` through a proxy; `auto` direct first, then a
 * proxy when the direct read was blocked.
 */
export interface ProxyEndpoint {
  readonly url: string;
  /** The URL with any user name and password replaced, safe for logs and messages. */
  readonly redacted: string;
}

export const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = "***";
      parsed.password = "";
    }
    return parsed.href;
  } catch {
    return "<invalid URL>";
  }
};

export const parseProxyUrls = (value: string | ReadonlyArray<string> | undefined): ReadonlyArray<ProxyEndpoint> =>
  splitSetting(value).map((entry) => {
    let parsed: URL;
    try {
      parsed = new URL(entry);
    } catch {
      throw new InvalidReadingConfig({
        setting: "GLEANER_PROXY_URLS",
        message: `GLEANER_PROXY_URLS: an entry is not a URL (${redactUrl(entry)})`,
      });
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new InvalidReadingConfig({
        setting: "GLEANER_PROXY_URLS",
        message: `GLEANER_PROXY_URLS: ${redactUrl(entry)} is not an http or https proxy`,
      });
    }
    return { url: parsed.href, redacted: redactUrl(parsed.href) };
  });

export type Route = { readonly kind: "direct" } | { readonly kind: "proxy"; readonly proxy: ProxyEndpoint };

export type RoutePlan =
  | { readonly ok: true; readonly routes: ReadonlyArray<Route> }
  | { readonly ok: false; readonly message: string };

/**
 * The routes to try in order. `turn` rotates among proxies so consecutive reads spread over them.
 * `always` with no proxy is a configuration error the user must be told about, naming the setting.
 */
export const planRoutes = (mode: ProxyMode, proxies: ReadonlyArray<ProxyEndpoint>, turn = 0): RoutePlan => {
  const pick = (offset: number): Route | null => {
    const proxy = proxies[(turn + offset) % Math.max(1, proxies.length)];
    return proxy ? { kind: "proxy", proxy } : null;
  };
  switch (mode) {
    case "never":
      return { ok: true, routes: [{ kind: "direct" }] };
    case "always": {
      if (proxies.length === 0) {
        return {
          ok: false,
          message: 'the source asks for proxy "always" but no proxy is configured (set GLEANER_PROXY_URLS)',
        };
      }
      return {
        ok: true,
        routes: proxies.map((_, offset) => pick(offset)).filter((route): route is Route => route !== null),
      };
    }
    case "auto": {
      const proxy = pick(0);
      return { ok: true, routes: proxy ? [{ kind: "direct" }, proxy] : [{ kind: "direct" }] };
    }
  }
};
