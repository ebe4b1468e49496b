import type { GleanerClient } from "@gleaner/client";
import { fail } from "./args.js";

/** `gleaner keys list`: the key's owner's keys, one line each (never a secret). */
export const listKeysCommand = async (client: GleanerClient, out: NodeJS.WriteStream = process.stdout) => {
  const { data, error } = await client.GET("/v1/keys");
  if (!data) return fail(`The keys could not be listed: ${error?.error.code}: ${error?.error.message}`);
  for (const key of data.keys) {
    const shown = key.prefix && key.lastFour ? `${key.prefix}…${key.lastFour}` : "(made before keys were listed)";
    out.write(
      `${key.id}  ${shown}  ${key.name ?? "-"}  created ${key.createdAt}  last used ${key.lastUsedAt ?? "never"}\n`,
    );
  }
};

/** `gleaner keys revoke KEY_ID`: revoked at once, in every process. */
export const revokeKeyCommand = async (
  client: GleanerClient,
  keyId: string,
  out: NodeJS.WriteStream = process.stdout,
) => {
  const { error } = await client.DELETE("/v1/keys/{keyId}", { params: { path: { keyId } } });
  if (error) return fail(`The key was not revoked: ${error.error.code}: ${error.error.message}`);
  out.write(`Revoked ${keyId}.\n`);
};

/**
 * `gleaner keys new [--name N]`: another key for GLEANER_API_KEY's owner, through the API. The secret
 * alone goes to stdout (shown this once), so a script can take it; what it is goes to stderr.
 */
export const newKeyCommand = async (
  client: GleanerClient,
  name: string | undefined,
  out: NodeJS.WriteStream = process.stdout,
  note: NodeJS.WriteStream = process.stderr,
) => {
  const { data, error } = await client.POST("/v1/keys", { body: name === undefined ? {} : { name } });
  if (!data) return fail(`The key was not made: ${error?.error.code}: ${error?.error.message}`);
  out.write(`${data.secret}\n`);
  note.write(`Key ${data.key.id}${data.key.name ? ` (${data.key.name})` : ""} made; its secret is shown only here.\n`);
};
