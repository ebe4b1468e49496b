import { isDeepStrictEqual } from "node:util";

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const labelPair = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
const unescapeLabel = (text: string) => text.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));

const parseLabels = (text: string, line: string): Record<string, string> => {
  const labels: Record<string, string> = {};
  labelPair.lastIndex = 0;
  while (labelPair.lastIndex < text.length) {
    const at = labelPair.lastIndex;
    const pair = labelPair.exec(text);
    if (!pair || pair.index !== at) throw new Error(`Bad labels in exposition line: ${line}`);
    labels[pair[1]!] = unescapeLabel(pair[2]!);
  }
  return labels;
};

const number = (text: string) => (text === "+Inf" ? Infinity : text === "-Inf" ? -Infinity : Number(text));

/**
 * A scrape read as Prometheus's text exposition format (version 0.0.4): every sample must belong to
 * a family its `# TYPE` line declared (a histogram's _bucket, _sum and _count to the histogram), and
 * every line must parse, so a malformed scrape fails the test rather than reading as a missing series.
 */
export const parseExposition = (text: string) => {
  const types = new Map<string, string>();
  const samples: Array<Sample & { readonly family: string }> = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const declared = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (declared) {
      types.set(declared[1]!, declared[2]!);
      continue;
    }
    if (line.startsWith("#")) continue;
    const parts = sampleLine.exec(line);
    if (!parts) throw new Error(`Bad exposition line: ${line}`);
    const name = parts[1]!;
    const base = name.replace(/_(bucket|sum|count)$/, "");
    const family = types.has(name) ? name : types.has(base) ? base : undefined;
    if (family === undefined) throw new Error(`A sample of no declared family: ${line}`);
    const value = number(parts[3]!);
    // Go's ParseFloat, which Prometheus reads samples with, takes NaN in any case (prom-client writes Nan).
    if (Number.isNaN(value) && parts[3]!.toLowerCase() !== "nan") throw new Error(`Bad sample value: ${line}`);
    samples.push({ family, name, labels: parseLabels(parts[2] ?? "", line), value });
  }
  const find = (name: string, labels: Record<string, string>) =>
    samples.find((sample) => sample.name === name && isDeepStrictEqual(sample.labels, labels))?.value;
  return {
    /** Every declared family's name. */
    names: [...types.keys()],
    /** A counter's or gauge's value for exactly these labels; undefined when the series is not exported. */
    value: (name: string, labels: Record<string, string> = {}) => find(name, labels),
    /** A histogram's observation count and sum for exactly these labels. */
    histogram: (name: string, labels: Record<string, string>) => ({
      count: find(`${name}_count`, labels),
      sum: find(`${name}_sum`, labels),
    }),
  };
};
