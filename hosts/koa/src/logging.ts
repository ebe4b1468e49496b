import * as Cause from "effect/Cause";
import * as HashMap from "effect/HashMap";
import * as Layer from "effect/Layer";
import * as List from "effect/List";
import * as Logger from "effect/Logger";
import * as LogLevel from "effect/LogLevel";
import { boundedText } from "@gleaner/core";
import { type Logger as Pino, pino } from "pino";

/**
 * The process's one logger: pino, human-readable through pino-pretty when stdout is a terminal
 * (`npm start` by hand), JSON lines otherwise (containers, log shippers). pino adds pid and host
 * to every line, so a worker's lines say which process ran the run.
 */
export const makeLogger = (level: string, pretty = process.stdout.isTTY === true): Pino =>
  pretty
    ? pino({ level, transport: { target: "pino-pretty", options: { colorize: true, translateTime: "SYS:HH:MM:ss" } } })
    : pino({ level });

const levels: Record<string, "trace" | "debug" | "info" | "warn" | "error" | "fatal"> = {
  TRACE: "trace",
  DEBUG: "debug",
  INFO: "info",
  WARN: "warn",
  ERROR: "error",
  FATAL: "fatal",
};

const effectLevel: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  silent: LogLevel.None,
};

/** A log line names a rejected value by its first bytes and size, never prints it whole (decision 0041). */
const maxLoggedTextBytes = 2048;

/**
 * A failure as a log field: an Error with its name, code, and message and stack cut to size (a
 * validation failure's message may hold the whole value a client sent), its cause likewise.
 */
const loggedError = (error: unknown): unknown => {
  if (!(error instanceof Error)) return typeof error === "string" ? boundedText(error, maxLoggedTextBytes) : error;
  const { _tag, code } = error as { _tag?: string; code?: string };
  const logged = Object.assign(new Error(boundedText(error.message, maxLoggedTextBytes)), code ? { code } : {});
  logged.name = _tag ?? error.name;
  logged.stack = error.stack === undefined ? undefined : boundedText(error.stack, maxLoggedTextBytes);
  if (error.cause !== undefined && error.cause !== error) logged.cause = loggedError(error.cause);
  return logged;
};

/**
 * Effect's logger bridged to pino, so the core's run lifecycle lines (queued, started, page read,
 * accepted/failed/blocked/held with counts and credits) share one format with the HTTP lines.
 * Annotations become fields; a cause is logged as `err`.
 */
export const pinoLoggerLayer = (logger: Pino): Layer.Layer<never> =>
  Layer.merge(
    Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ logLevel, message, annotations, cause }) => {
        const method = levels[logLevel.label] ?? "info";
        const fields: Record<string, unknown> = Object.fromEntries(HashMap.toEntries(annotations));
        if (!Cause.isEmpty(cause)) fields.err = loggedError(Cause.squash(cause));
        const parts = List.isList(message) ? List.toArray(message) : Array.isArray(message) ? message : [message];
        const text = parts.map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join(" ");
        logger[method](fields, boundedText(text, maxLoggedTextBytes));
      }),
    ),
    Logger.minimumLogLevel(effectLevel[logger.level] ?? LogLevel.Info),
  );
