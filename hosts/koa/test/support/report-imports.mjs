// Loaded with `node --import`: reports on stderr every bare package specifier the process
// resolves, so a test can tell which adapters' drivers a host loaded.
import { registerHooks } from "node:module";

const reported = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (!specifier.startsWith(".") && !specifier.startsWith("node:") && !specifier.startsWith("file:")) {
      const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
      if (!reported.has(name)) {
        reported.add(name);
        process.stderr.write(`[import] ${name}\n`);
      }
    }
    return nextResolve(specifier, context);
  },
});
