/** A bench's `--name V` option: one of `allowed`, the first when absent. */
export const choiceArg = <const T extends string>(name: string, allowed: readonly [T, ...T[]]): T => {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : allowed[0];
  if (!allowed.includes(value as T)) throw new Error(`--${name} must be one of ${allowed.join(", ")}`);
  return value as T;
};

/** A bench's `--name N` option: a positive integer, `fallback` when absent. */
export const positiveIntegerArg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
};
