import { existsSync } from "node:fs";
import { suite } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";

/**
 * `render: browser` needs Chromium at GLEANER_BROWSER_PATH (Debian's `chromium`; .ci/run installs it).
 * Locally a missing Chromium leaves the browser cases out with a printed reason; in CI it is an error.
 */
const browserPath = process.env.GLEANER_BROWSER_PATH || "/usr/bin/chromium";
const browser = existsSync(browserPath);
if (!browser) {
  const why = `no Chromium at ${browserPath} (apt-get install chromium, or set GLEANER_BROWSER_PATH)`;
  if (process.env.CI === "true") throw new Error(`conformance (memory): ${why}; CI must run the browser cases.`);
  console.log(`[conformance] memory: supports.browser is false: ${why}.`);
}

suite({ name: "memory", layer: () => MemoryStoreLive, supports: { browser }, config: { browserPath } });
