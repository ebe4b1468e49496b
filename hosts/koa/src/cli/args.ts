/** Prints the message and exits 1: a command-line mistake, not a crash. */
export const fail = (message: string): never => {
  console.error(message);
  process.exit(1);
};

export const positiveInt = (name: string, value: string | undefined, fallback?: number): number => {
  if (value === undefined && fallback !== undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) return fail(`--${name} must be a whole number >= 0 (got ${value ?? "nothing"}).`);
  return n;
};
