import { exportRows, type GleanerClient } from "@gleaner/client";
import { useState } from "preact/hooks";
import { type Dataset, messageOf, unwrap } from "../api.js";
import { cronReading } from "../format.js";
import { useLoad } from "../use-load.js";
import { Changes } from "./changes.js";
import { Rows } from "./rows.js";
import { Runs } from "./runs.js";
import { Awaiting, Status } from "./shared.js";

interface Props {
  client: GleanerClient;
  datasetId: string;
  tab: "rows" | "runs" | "changes";
  query: URLSearchParams;
}

export const DatasetPage = ({ client, datasetId, tab, query }: Props) => {
  const dataset = useLoad(
    () => unwrap(client.GET("/v1/datasets/{datasetId}", { params: { path: { datasetId } } })).then((d) => d.dataset),
    [client, datasetId],
  );
  return (
    <Awaiting loaded={dataset}>
      {(current) => (
        <section aria-labelledby="dataset-title">
          <p class="crumbs">
            <a href="#/datasets">Datasets</a> /
          </p>
          <div class="title-row">
            <h1 id="dataset-title">{current.name}</h1>
            <Status status={current.status} />
          </div>
          {current.question && <p class="muted">{current.question}</p>}
          {current.lastRun?.status === "held" && (
            <p class="notice" role="status" data-testid="held-notice">
              The last run was held: nothing was written.{" "}
              <a href={`#/runs/${current.lastRun.id}`}>See why, and accept it if the site really changed</a>.
            </p>
          )}
          <Lifecycle client={client} dataset={current} onChanged={dataset.reload} />
          <DataExport client={client} dataset={current} />
          <nav class="tabs" aria-label="Dataset">
            {(["rows", "runs", "changes"] as const).map((name) => (
              <a key={name} href={`#/datasets/${datasetId}/${name}`} aria-current={tab === name ? "page" : undefined}>
                {name === "rows" ? `Rows (${current.rowCount})` : name === "runs" ? "Runs" : "Changes"}
              </a>
            ))}
          </nav>
          {tab === "rows" && <Rows client={client} dataset={current} />}
          {tab === "runs" && <Runs client={client} dataset={current} onRunStarted={dataset.reload} />}
          {tab === "changes" && <Changes client={client} dataset={current} query={query} />}
          <DeleteDataset client={client} dataset={current} />
        </section>
      )}
    </Awaiting>
  );
};

/** Pause/activate and the schedule, with the cron read aloud before it is saved. */
const Lifecycle = ({
  client,
  dataset,
  onChanged,
}: {
  client: GleanerClient;
  dataset: Dataset;
  onChanged: () => void;
}) => {
  const [cron, setCron] = useState(dataset.scheduleState?.cron ?? dataset.schedule ?? "");
  const [error, setError] = useState<string | null>(null);
  const reading = cronReading(cron);
  const update = async (body: { status?: "active" | "paused"; schedule?: string | null }) => {
    setError(null);
    try {
      await unwrap(client.PATCH("/v1/datasets/{datasetId}", { params: { path: { datasetId: dataset.id } }, body }));
      onChanged();
    } catch (thrown) {
      setError(messageOf(thrown));
    }
  };
  return (
    <div class="lifecycle">
      <button
        type="button"
        class="secondary"
        onClick={() => update({ status: dataset.status === "active" ? "paused" : "active" })}
      >
        {dataset.status === "active" ? "Pause" : "Activate"}
      </button>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void update({ schedule: cron.trim() === "" ? null : cron.trim() });
        }}
      >
        <label for="schedule">Schedule (cron)</label>
        <input
          id="schedule"
          class="code"
          value={cron}
          placeholder="0 6 * * *"
          onInput={(e) => setCron(e.currentTarget.value)}
          aria-describedby="schedule-reading"
        />
        <button type="submit" class="secondary">
          Save schedule
        </button>
        <span id="schedule-reading" class="muted" aria-live="polite">
          {cron.trim() === "" ? "no schedule" : (reading ?? "not a cron expression")}
          {dataset.scheduleState?.status === "paused" &&
            ` (paused${dataset.scheduleState.reason ? `: ${dataset.scheduleState.reason}` : ""})`}
        </span>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
};

/**
 * Deleting a dataset removes its rows, history and runs for good, so it asks for the dataset's name
 * typed out before the button does anything.
 */
const DeleteDataset = ({ client, dataset }: { client: GleanerClient; dataset: Dataset }) => {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    setError(null);
    const { error: failed, response } = await client.DELETE("/v1/datasets/{datasetId}", {
      params: { path: { datasetId: dataset.id } },
    });
    if (failed || !response.ok)
      return setError(failed ? `${failed.error.message} (${failed.error.code})` : `HTTP ${response.status}`);
    window.location.hash = "#/datasets";
  };
  if (!open) {
    return (
      <p class="danger-zone">
        <button type="button" class="secondary" onClick={() => setOpen(true)}>
          Delete this dataset…
        </button>
      </p>
    );
  }
  return (
    <form
      class="danger-zone"
      aria-labelledby="delete-title"
      onSubmit={(event) => {
        event.preventDefault();
        void remove();
      }}
    >
      <h2 id="delete-title">Delete this dataset</h2>
      <p>
        This removes its {dataset.rowCount} rows, their change history, its runs and the webhooks set up for it. Credits
        already charged stay in your usage. It cannot be undone.
      </p>
      <label for="delete-name">Type the dataset's name, {dataset.name}, to delete it</label>
      <input id="delete-name" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} autocomplete="off" />
      <button type="submit" class="danger" disabled={typed !== dataset.name}>
        Delete for good
      </button>
      <button type="button" class="secondary" onClick={() => setOpen(false)}>
        Keep it
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
};

const extensions = { csv: "csv", jsonl: "jsonl", parquet: "parquet" } as const;

/**
 * The rows as a file (CSV, JSON Lines or Parquet), now or as of a change-feed sequence: streamed by
 * the API, saved by the browser.
 */
const DataExport = ({ client, dataset }: { client: GleanerClient; dataset: Dataset }) => {
  const [format, setFormat] = useState<keyof typeof extensions>("csv");
  const [asOf, setAsOf] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setError(null);
    setBusy(true);
    try {
      const sequence = asOf.trim() === "" ? undefined : Number(asOf);
      const stream = await exportRows(client, dataset.id, {
        format,
        ...(sequence !== undefined ? { asOf: sequence } : {}),
      });
      const file = URL.createObjectURL(await new Response(stream).blob());
      const link = document.createElement("a");
      link.href = file;
      link.download = `${dataset.name}${sequence !== undefined ? `-as-of-${sequence}` : ""}.${extensions[format]}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(file), 60_000);
    } catch (thrown) {
      setError(messageOf(thrown));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="inline export"
      aria-label="Export rows"
      onSubmit={(event) => {
        event.preventDefault();
        void download();
      }}
    >
      <label for="export-format">Export rows as</label>
      <select
        id="export-format"
        value={format}
        onChange={(e) => setFormat(e.currentTarget.value as keyof typeof extensions)}
      >
        <option value="csv">CSV</option>
        <option value="jsonl">JSON Lines</option>
        <option value="parquet">Parquet</option>
      </select>
      <label for="export-as-of">as of change #</label>
      <input
        id="export-as-of"
        inputMode="numeric"
        placeholder="now"
        value={asOf}
        onInput={(e) => setAsOf(e.currentTarget.value)}
        size={6}
      />
      <button type="submit" class="secondary" disabled={busy}>
        Download
      </button>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
};
