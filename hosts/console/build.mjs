// Bundles the console for the browser (no CDN, nothing fetched at run time) into dist/.
import { copyFile, mkdir, rm } from "node:fs/promises";
import { build } from "esbuild";

const out = new URL("./dist/", import.meta.url);
await rm(out, { recursive: true, force: true });
await mkdir(new URL("assets/", out), { recursive: true });
await build({
  entryPoints: [new URL("./src/main.tsx", import.meta.url).pathname],
  outfile: new URL("assets/console.js", out).pathname,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: true,
  sourcemap: true,
  legalComments: "linked",
  logLevel: "warning",
});
await copyFile(new URL("./static/index.html", import.meta.url), new URL("index.html", out));
await copyFile(new URL("./static/console.css", import.meta.url), new URL("assets/console.css", out));
