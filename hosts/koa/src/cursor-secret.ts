import { createHmac } from "node:crypto";
import * as Config from "effect/Config";
import * as Option from "effect/Option";
import * as Redacted from "effect/Redacted";
import { readFrom } from "./config-errors.js";
import type { HostConfig } from "./config.js";

/** Fixed so that every process deriving from the same store settings derives the same key. */
const derivationLabel = "gleaner cursor secret v1";

/**
 * The key list cursors are signed with (core's CursorSecret), or null to keep core's random
 * per-process key. GLEANER_CURSOR_SECRET wins; otherwise the key is an HMAC of the selected store's
 * own variables (GLEANER_POSTGRES_*, GLEANER_MONGODB_*), so every API process sharing a database
 * agrees without configuration. The memory store lives in one process, and so may its cursors.
 */
export const cursorSecretFor = (config: Pick<HostConfig, "storage" | "variables">): Uint8Array | null => {
  const explicit = readFrom(Config.option(Config.redacted("GLEANER_CURSOR_SECRET")), { ...config.variables });
  if (Option.isSome(explicit) && Redacted.value(explicit.value) !== "") {
    return createHmac("sha256", Redacted.value(explicit.value)).update(derivationLabel).digest();
  }
  if (config.storage === "memory") return null;
  const prefix = `GLEANER_${config.storage.toUpperCase()}_`;
  const storeSettings = Object.entries(config.variables)
    .filter(([name]) => name.startsWith(prefix))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHmac("sha256", JSON.stringify(storeSettings)).update(derivationLabel).digest();
};
