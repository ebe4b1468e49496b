import type { GleanerClient, Run, RunTrace } from "@gleaner/client";
import { useEffect, useState } from "preact/hooks";
import { type Column, type Schemas, unwrap } from "../api.js";
import { labelOf, namingColumns, safeHref, when } from "../format.js";
import { useLoad } from "../use-load.js";
import { Diagnostics } from "./diagnostics.js";
import { HeldRun } from "./held-run.js";
import { Awaiting, Problem, Status } from "./shared.js";

const TERMINAL = new Set(["succeeded", "failed", "blocked", "held"]);
const POLL_MS = 700;

interface Live {
  readonly run: Run;
  readonly trace: RunTrace | null;
}

/** Polls the run and its trace until the run is finished, so a running run updates in place. */
const useLiveRun = (client: GleanerClient, runId: string, version: number): { live: Live | null; error: unknown } => {
  const [live, setLive] = useState<Live | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const params = { params: { path: { runId } } };
        const [{ run }, traced] = await Promise.all([
          unwrap(client.GET("/v1/runs/{runId}", params)),
          unwrap(client.GET("/v1/runs/{runId}/trace", params)).catch(() => null),
        ]);
        if (stopped) return;
        setLive({ run, trace: traced?.trace ?? null });
        setError(undefined);
        if (!TERMINAL.has(run.status)) timer = setTimeout(poll, POLL_MS);
      } catch (thrown) {
        if (stopped) return;
        setError(thrown);
        timer = setTimeout(poll, POLL_MS * 3);
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [client, runId, version]);
  return { live, error };
};

export const RunPage = ({ client, runId }: { client: GleanerClient; runId: string }) => {
  // Bumped when the owner accepts a held run, so the page reads the run again.
  const [version, setVersion] = useState(0);
  const { live, error } = useLiveRun(client, runId, version);
  const datasetId = live?.run.datasetId;
  // The dataset's columns name the `present:<field id>` checks and a hold's columns: what names
  // fields waits for them, so a person never sees an id (on a failed read, the ids are all there is).
  const columns = useLoad(
    async () =>
      datasetId
        ? (await unwrap(client.GET("/v1/datasets/{datasetId}", { params: { path: { datasetId } } }))).dataset.columns
        : null,
    [client, datasetId],
  );
  const named = columns.data ?? (columns.error === undefined ? null : []);
  if (!live) return error ? <Problem error={error} /> : <p class="muted">Loading…</p>;
  const { run, trace } = live;
  const reads = trace?.steps.filter((step) => step.phase === "read") ?? [];
  // The trace is written while the run works: a read in progress is a `running` step with its URL.
  const current = (reads.find((step) => step.status === "running") ?? reads.at(-1))?.sourceUrl;
  const finished = TERMINAL.has(run.status);
  return (
    <section aria-labelledby="run-title">
      <p class="crumbs">
        <a href="#/datasets">Datasets</a> / <a href={`#/datasets/${run.datasetId}/runs`}>Dataset runs</a> /
      </p>
      <div class="title-row">
        <h1 id="run-title">Run {run.id.slice(0, 8)}</h1>
        <span aria-live="polite" data-testid="run-status">
          <Status status={run.status} />
        </span>
      </div>
      {error !== undefined && <Problem error={error} />}
      <dl class="facts" aria-live="polite">
        <dt>Pages read</dt>
        <dd data-testid="pages-read">{reads.filter((step) => step.status === "succeeded").length}</dd>
        <dt>{finished ? "Last page" : "Reading"}</dt>
        <dd class="url">{current ?? "—"}</dd>
        {!finished && run.startedAt && (
          <>
            <dt>Running for</dt>
            <dd>{Math.max(0, Math.round((Date.now() - Date.parse(run.startedAt)) / 1000))} s</dd>
          </>
        )}
        <dt>Queued</dt>
        <dd>{when(run.queuedAt)}</dd>
        <dt>Completed</dt>
        <dd>{when(run.completedAt)}</dd>
        <dt>Rows new / changed / gone</dt>
        <dd>
          {run.rowDeltas.new} / {run.rowDeltas.changed} / {run.rowDeltas.gone}
        </dd>
      </dl>
      {run.error && (
        <p class="error" role="alert">
          {namingColumns(run.error, named ?? [])}
        </p>
      )}
      {named && run.status === "held" && (
        <HeldRun client={client} run={run} columns={named} onAccepted={() => setVersion((v) => v + 1)} />
      )}
      {named && <Checks checks={run.checks} columns={named} />}
      {trace && <Timeline trace={trace} />}
      {finished && <Artifacts client={client} runId={run.id} />}
      {finished && named && <Diagnostics client={client} runId={run.id} columns={named} />}
    </section>
  );
};

const checkName = (checkId: string, columns: ReadonlyArray<Column>): string =>
  checkId.startsWith("present:") ? `present: ${labelOf(columns, checkId.slice("present:".length))}` : checkId;

/** Failed checks first, each with its message. */
const Checks = ({
  checks,
  columns,
}: {
  checks: ReadonlyArray<Schemas["CheckResult"]>;
  columns: ReadonlyArray<Column>;
}) => {
  if (checks.length === 0) return null;
  const ordered = [...checks].sort((a, b) => Number(a.passed) - Number(b.passed));
  return (
    <section aria-labelledby="checks-title">
      <h2 id="checks-title">Checks</h2>
      <ul class="checks">
        {ordered.map((check) => (
          <li key={check.checkId} class={check.passed ? "passed" : "failed"}>
            <strong>{check.passed ? "✓ passed" : "✗ failed"}</strong> <code>{checkName(check.checkId, columns)}</code>
            {check.message && <span> — {namingColumns(check.message, columns)}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
};

const Timeline = ({ trace }: { trace: RunTrace }) => (
  <section aria-labelledby="trace-title">
    <h2 id="trace-title">Trace</h2>
    <p class="muted">
      {[
        `Wall ${trace.wallMs ?? "—"} ms`,
        `queue ${trace.queueMs ?? "—"} ms`,
        ...trace.phases.map((phase) => `${phase.phase} ${phase.count}× ${phase.totalMs} ms`),
        ...(trace.truncated ? ["truncated"] : []),
      ].join(" · ")}
    </p>
    <ol class="timeline">
      {trace.steps.map((step) => (
        <li key={step.stepId} class={`step step-${step.status}`}>
          <span class="phase">{step.phase}</span> <Status status={step.status} />{" "}
          {step.durationMs !== undefined && <span class="muted">{step.durationMs} ms</span>}{" "}
          {step.sourceUrl && <span class="url">{step.sourceUrl}</span>}
          {step.readFailure && (
            <span class="error">
              {" "}
              {step.readFailure.reason}
              {step.readFailure.status !== null && ` (${step.readFailure.status})`}
            </span>
          )}
        </li>
      ))}
    </ol>
  </section>
);

const Artifacts = ({ client, runId }: { client: GleanerClient; runId: string }) => {
  const index = useLoad(
    () => unwrap(client.GET("/v1/runs/{runId}/artifacts", { params: { path: { runId } } })),
    [client, runId],
  );
  return (
    <section aria-labelledby="artifacts-title">
      <h2 id="artifacts-title">Artifacts</h2>
      <Awaiting loaded={index}>
        {(list) =>
          list.artifacts.length === 0 ? (
            <p class="muted">No artifacts recorded.</p>
          ) : (
            <ul>
              {list.artifacts.map((artifact) => (
                <li key={artifact.id}>
                  {artifact.kind} · {artifact.contentType} · {artifact.size} bytes
                  {artifact.url && (safeHref(artifact.url) ? <span class="url"> · {artifact.url}</span> : null)}
                  {artifact.truncated && " · body not kept"}
                </li>
              ))}
              {list.truncated && <li class="muted">More artifacts exist than the index lists.</li>}
            </ul>
          )
        }
      </Awaiting>
    </section>
  );
};
