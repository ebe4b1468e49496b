import { CronExpressionParser } from "cron-parser";

/**
 * Five-field cron (minute hour day-of-month month day-of-week), evaluated in UTC. Parsing and
 * occurrence arithmetic are cron-parser's; this file only fixes the dialect Gleaner accepts.
 */
export const cronProblem = (expression: string): string | null => {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) {
    return `must have five fields (minute hour day-of-month month day-of-week); "${expression}" has ${fields.length}`;
  }
  try {
    CronExpressionParser.parse(expression, { tz: "UTC" });
    return null;
  } catch (error) {
    return `is not a valid cron expression: ${error instanceof Error ? error.message : String(error)}`;
  }
};

/** The first occurrence strictly after `afterMs`, in epoch milliseconds. */
export const nextOccurrence = (expression: string, afterMs: number): number =>
  CronExpressionParser.parse(expression, { tz: "UTC", currentDate: new Date(afterMs) })
    .next()
    .getTime();
