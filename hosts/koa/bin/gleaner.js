#!/usr/bin/env node
// The `gleaner` bin. A small shim that always exists (npm links bins at install time, before
// anything is built), checks the Node version before loading code that needs Node 24, then runs
// the CLI from its bundle (dist/bundle/cli.js, made by `npm run build`: one file to load instead of
// ~1,300 modules; decision 0020).
const [major] = process.versions.node.split(".").map(Number);
if (major < 24) {
  console.error(
    `gleaner needs Node 24 or newer; this is Node ${process.versions.node}. ` +
      "Run it through npm (npx gleaner …, npm start) so the project's own Node 24 is used.",
  );
  process.exit(1);
}
import("../dist/bundle/cli.js").catch((error) => {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/bundle/cli.js")) {
    console.error("gleaner is not built yet: run `npm run build` (npm start and npm test build it too).");
    process.exit(1);
  }
  throw error;
});
