import type { GleanerClient, Run } from "@gleaner/client";
import { useState } from "preact/hooks";
import { type Column, messageOf, type Schemas, unwrap } from "../api.js";
import { labelOf, safeHref } from "../format.js";
import { useLoad } from "../use-load.js";
import { Awaiting } from "./shared.js";

type Drift = NonNullable<Schemas["RunDiagnostics"]["drift"]>;
type Rule = Drift["rules"][number];

const percent = (rate: number) => `${Math.round(rate * 100)}%`;

/** A rule's figures as an owner reads them: what is measured, before and after the run. */
const figures = (rule: Rule, columns: ReadonlyArray<Column>): [string, string, string] => {
  switch (rule.code) {
    case "drift_fill_rate":
      return [
        `${labelOf(columns, rule.fieldId ?? "")} filled`,
        `${percent(rule.before)} of ${rule.rowsBefore} rows`,
        `${percent(rule.after)} of ${rule.recordsAfter} records`,
      ];
    case "drift_record_count":
      return ["Records", `${rule.before} rows`, `${rule.after} records read`];
    default:
      return [
        "Rows still there",
        `${rule.before} rows`,
        `${rule.after} (${rule.before - rule.after} would go missing)`,
      ];
  }
};

const shown = (value: unknown) => (value === null ? <span class="muted">nothing</span> : String(value));

const RuleTable = ({ rules, columns }: { rules: ReadonlyArray<Rule>; columns: ReadonlyArray<Column> }) => (
  <table class="drift">
    <caption>What changed</caption>
    <thead>
      <tr>
        <th scope="col">Measure</th>
        <th scope="col">Before</th>
        <th scope="col">This run</th>
      </tr>
    </thead>
    <tbody>
      {rules.map((rule) => {
        const [measure, before, after] = figures(rule, columns);
        return (
          <tr key={`${rule.code}:${rule.fieldId ?? ""}`} data-code={rule.code}>
            <th scope="row">{measure}</th>
            <td>{before}</td>
            <td>{after}</td>
          </tr>
        );
      })}
    </tbody>
  </table>
);

const Examples = ({ rules, columns }: { rules: ReadonlyArray<Rule>; columns: ReadonlyArray<Column> }) => {
  const examples = rules.flatMap((rule) => rule.examples.map((example) => ({ rule, example })));
  if (examples.length === 0) return null;
  return (
    <table class="drift-examples">
      <caption>Example records</caption>
      <thead>
        <tr>
          <th scope="col">Record</th>
          <th scope="col">Column</th>
          <th scope="col">Was</th>
          <th scope="col">Read this time</th>
        </tr>
      </thead>
      <tbody>
        {examples.slice(0, 10).map(({ rule, example }) => (
          <tr key={`${rule.code}:${example.entity}`}>
            <td>
              {example.url && safeHref(example.url) ? (
                <a href={example.url} rel="noreferrer noopener" target="_blank">
                  {example.entity}
                </a>
              ) : (
                example.entity
              )}
            </td>
            <td>{rule.fieldId ? labelOf(columns, rule.fieldId) : "—"}</td>
            <td>{rule.column ? shown(example.previous) : "a row"}</td>
            <td>{rule.column ? shown(example.read) : <span class="muted">not found</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
};

/**
 * A held run's explanation (decision 0040): for a drift hold, a before/after table per tripped rule
 * and example records; then "Accept this run", which accepts what the run read (charged then).
 */
export const HeldRun = ({
  client,
  run,
  columns,
  onAccepted,
}: {
  client: GleanerClient;
  run: Run;
  columns: ReadonlyArray<Column>;
  onAccepted: () => void;
}) => {
  const diagnostics = useLoad(
    () => unwrap(client.GET("/v1/runs/{runId}/diagnostics", { params: { path: { runId: run.id } } })),
    [client, run.id],
  );
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      await unwrap(client.POST("/v1/runs/{runId}/accept", { params: { path: { runId: run.id } } }));
      onAccepted();
    } catch (thrown) {
      setError(messageOf(thrown));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="held-title" class="held">
      <h2 id="held-title">Why this run was held</h2>
      <Awaiting loaded={diagnostics}>
        {({ diagnostics: found }) =>
          found.drift && !found.drift.accepted ? (
            <>
              <p>
                Every check passed, but what the run read does not look like the dataset: the site's layout may have
                changed. Nothing was written or charged.
              </p>
              <RuleTable rules={found.drift.rules} columns={columns} />
              <Examples rules={found.drift.rules} columns={columns} />
            </>
          ) : (
            <p>Every check passed, but the balance could not pay for the pages read. Top up, then accept it.</p>
          )
        }
      </Awaiting>
      <p class="muted">
        Accepting writes what this run read, as if it had been accepted when it ran, and charges for its pages. If the
        site did not really change, fix the source instead and run again.
      </p>
      <button type="button" onClick={() => void accept()} disabled={busy}>
        Accept this run
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
};
