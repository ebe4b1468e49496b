import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Every tagged shell block the docs show (```sh TAG), with the page that shows it. A test runs a
 * block only through `block(tag)`, which knows no other tag, and docs.test.ts checks that every
 * tagged block of README and the guides is here under its own page.
 */
export const docBlocks = {
  "walk-site": "README.md",
  "walk-server": "README.md",
  walk: "README.md",
  "walk-suggest": "docs/guides/from-a-page-to-a-source.md",
  "data-out-export": "docs/guides/data-out.md",
  "data-out-webhook": "docs/guides/data-out.md",
  "durable-serve": "docs/guides/durable-profile.md",
  "durable-worker": "docs/guides/durable-profile.md",
  "test-one": "docs/guides/writing-an-adapter.md",
  "test-capability": "docs/guides/writing-an-adapter.md",
} as const;

export type DocBlock = keyof typeof docBlocks;

/** The text of the block tagged `tag`, read from its page as written. */
export const block = (tag: DocBlock): string => {
  const file = docBlocks[tag];
  const match = new RegExp(`\`\`\`sh ${tag}\\n([\\s\\S]*?)\`\`\``).exec(readFileSync(`${root}${file}`, "utf8"));
  if (!match?.[1]) throw new Error(`${file} has no \`\`\`sh ${tag} block.`);
  return match[1];
};
