// Bundles the `gleaner` CLI into dist/bundle/ (esbuild, code splitting): one file to start from
// instead of ~1,300 modules to resolve. Adapters the configuration selects stay behind dynamic
// imports (chunks of their own) and the drivers stay external, so a memory host still loads no
// driver. Decision 0042 ("The CLI starts from a bundle").
// The optional peers stay chunks rather than external, because unbundled they would load second
// copies of core and Effect (~1,070 modules instead of ~390 at a durable start); importPeer
// (src/optional-peers.ts) checks each peer resolves before its chunk loads.
import { rm } from "node:fs/promises";
import { build } from "esbuild";

const out = new URL("./dist/bundle/", import.meta.url).pathname;

/** Drivers and packages that find files or workers by name at run time: loaded from node_modules. */
const external = [
  "pg",
  "pg-native",
  "mongodb",
  "agenda",
  "@agendajs/*",
  "playwright-core",
  "jsdom",
  "@mozilla/readability",
  "openai",
  "ajv",
  "pino",
  "pino-pretty",
];

await rm(out, { recursive: true, force: true });
await build({
  entryPoints: [new URL("./dist/cli.js", import.meta.url).pathname],
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node24",
  external,
  // CommonJS dependencies in an ES module bundle still call require() for Node's built-ins.
  banner: {
    js: 'import { createRequire as __gleanerRequire } from "node:module"; const require = __gleanerRequire(import.meta.url);',
  },
  // Class and function names stay as written (errors and logs name them).
  keepNames: true,
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
});
