import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { send } from "@koa/send";
import type { Middleware } from "koa";

/**
 * The console's policy: only this origin's own script, styles and API; no inline script or style, no
 * framing, no plugins. Row data is scraped web content, so even a rendering mistake cannot run it.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Where @gleaner/console put its built files (`npm run build`), or null when it is not installed. */
export const consoleAssetsDir = (): string | null => {
  try {
    // require.resolve rather than import.meta.resolve: test runners that load this file as CommonJS
    // (tsx under mocha) have no import.meta.resolve.
    return join(dirname(createRequire(import.meta.url).resolve("@gleaner/console/package.json")), "dist");
  } catch {
    return null;
  }
};

/**
 * Serves the web console at `/` (index.html) and `/assets/*`. It sits outside the route table on
 * purpose: those routes are the API and its OpenAPI document, and the console's files are neither.
 * Anything else, and a console that was never built, falls through to the API's own 404.
 */
export const serveConsole =
  (root: string | null): Middleware =>
  async (ctx, next) => {
    const file = ctx.path === "/" ? "index.html" : ctx.path.startsWith("/assets/") ? ctx.path.slice(1) : null;
    if (root === null || file === null || (ctx.method !== "GET" && ctx.method !== "HEAD")) return next();
    try {
      await send(ctx, file, {
        root,
        index: false,
        hidden: false,
        setHeaders: (res) => {
          res.setHeader("Content-Security-Policy", CONSOLE_CSP);
          res.setHeader("X-Content-Type-Options", "nosniff");
          res.setHeader("Referrer-Policy", "no-referrer");
          // index.html names the bundle, so it must be revalidated to pick up a new build.
          res.setHeader("Cache-Control", "no-cache");
        },
      });
    } catch (thrown) {
      // 404: no such file; 400/403: a path send refuses (`..`, NUL). Neither is a console file.
      const status = (thrown as { status?: number }).status;
      if (status === 404 || status === 403 || status === 400) return next();
      throw thrown;
    }
  };
