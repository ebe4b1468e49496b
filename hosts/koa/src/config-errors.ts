import * as Config from "effect/Config";
import type * as ConfigError from "effect/ConfigError";
import * as ConfigProvider from "effect/ConfigProvider";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";

/** Configuration the host cannot honour; its message has one line per offending variable. */
export class ConfigurationError extends Error {
  override readonly name = "ConfigurationError";
}

/** The GLEANER_* variables of an environment, an empty value counting as unset. */
export const gleanerVariables = (env: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[0].startsWith("GLEANER_") && !!entry[1]),
  );

const leaves = (error: ConfigError.ConfigError): ReadonlyArray<string> => {
  switch (error._op) {
    case "And":
    case "Or":
      return [...leaves(error.left), ...leaves(error.right)];
    case "MissingData":
      // Effect's own wording ("Expected X to exist in the provided map") speaks of its map.
      return [
        `${error.path.join("_")}: ${/^Expected |<redacted>/.test(error.message) ? "must be set" : error.message}`,
      ];
    default:
      return [`${error.path.join("_")}: ${error.message}`];
  }
};

/** One line per variable, the first complaint about each (Effect's own rendering is a tree). */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const byVariable = new Map<string, string>();
  for (const line of leaves(error)) {
    const variable = line.slice(0, line.indexOf(":"));
    if (!byVariable.has(variable)) byVariable.set(variable, line);
  }
  return ["Invalid configuration:", ...[...byVariable.values()].map((line) => `  ${line.replace(/\s+/g, " ")}`)].join(
    "\n",
  );
};

/** Reads `config` from the given variables, or throws a ConfigurationError naming each bad one. */
export const readFrom = <A>(config: Config.Config<A>, variables: Record<string, string>): A => {
  const read = Effect.runSync(
    Effect.either(Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(variables))))),
  );
  if (Either.isLeft(read)) throw new ConfigurationError(describeConfigError(read.left));
  return read.right;
};

/**
 * A start-up failure of an adapter (an unreachable database, a malformed URL), in one line that
 * names the variable to look at and the cause.
 */
export const startupError = (variable: string, cause: unknown): ConfigurationError => {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new ConfigurationError(`${variable}: ${message.replace(/\s+/g, " ").trim()}`);
};

/** A whole number from `min` to `max`, refused naming the range (config.ts and plugins.ts read such settings). */
export const wholeNumberIn = (variable: string, min: number, max: number) =>
  Config.integer(variable).pipe(
    Config.validate({
      message: `must be a whole number from ${min} to ${max}`,
      validation: (n) => n >= min && n <= max,
    }),
  );
