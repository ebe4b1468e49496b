import type { GleanerClient } from "@gleaner/client";
import { useState } from "preact/hooks";
import { ApiError, type Column, type Dataset, messageOf, type Schemas, unwrap } from "../api.js";
import { cellText, parseCell, safeHref, when } from "../format.js";
import { useLoad } from "../use-load.js";
import { Excerpt } from "./excerpt.js";
import { Awaiting, Status } from "./shared.js";

type RowDetail = Schemas["RowDetail"];

interface Props {
  client: GleanerClient;
  datasetId: string;
  rowId: string;
}

/** One row: each cell with its evidence excerpts and source, and a form to override or reset it. */
export const RowPage = ({ client, datasetId, rowId }: Props) => {
  const loaded = useLoad(
    () =>
      Promise.all([
        unwrap(client.GET("/v1/datasets/{datasetId}", { params: { path: { datasetId } } })),
        unwrap(client.GET("/v1/datasets/{datasetId}/rows/{rowId}", { params: { path: { datasetId, rowId } } })),
      ]).then(([{ dataset }, row]) => ({ dataset, row })),
    [client, datasetId, rowId],
  );
  return (
    <Awaiting loaded={loaded}>
      {({ dataset, row }) => (
        <section aria-labelledby="row-title">
          <p class="crumbs">
            <a href="#/datasets">Datasets</a> / <a href={`#/datasets/${dataset.id}`}>{dataset.name}</a> /
          </p>
          <div class="title-row">
            <h1 id="row-title">Row {row.rowKey}</h1>
            {row.status && <Status status={row.status} />}
          </div>
          <p class="muted">
            Observed {when(row.observedAt)} at <SourceLink url={row.sourceUrl} /> ·{" "}
            <a href={`#/datasets/${dataset.id}/changes?row=${row.id}`}>Row history</a>
          </p>
          <div class="cells">
            {dataset.columns.map((column) => (
              <CellCard
                key={`${column.id}:${row.revisionId}`}
                client={client}
                dataset={dataset}
                row={row}
                column={column}
                onEdited={loaded.reload}
              />
            ))}
          </div>
        </section>
      )}
    </Awaiting>
  );
};

const SourceLink = ({ url }: { url: string }) => {
  const href = safeHref(url);
  return href ? (
    <a href={href} rel="noreferrer noopener" target="_blank">
      {url}
    </a>
  ) : (
    <span>{url}</span>
  );
};

interface CellProps {
  client: GleanerClient;
  dataset: Dataset;
  row: RowDetail;
  column: Column;
  onEdited: () => void;
}

const CellCard = ({ client, dataset, row, column, onEdited }: CellProps) => {
  const value = row.data[column.id];
  const override = row.overrides?.[column.id];
  const [text, setText] = useState(value === null || value === undefined ? "" : String(value));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const inputId = `cell-${column.id}`;

  const edit = async (body: {
    values?: Record<string, string | number | boolean | null>;
    resetFieldIds?: string[];
  }) => {
    setError(null);
    setBusy(true);
    try {
      await unwrap(
        client.PATCH("/v1/datasets/{datasetId}/rows/{rowId}", {
          params: { path: { datasetId: dataset.id, rowId: row.id } },
          body: { expectedRevisionId: row.revisionId ?? "", requestId: crypto.randomUUID(), ...body },
        }),
      );
      onEdited();
    } catch (thrown) {
      setError(
        thrown instanceof ApiError && thrown.body.code === "stale_revision"
          ? "Someone (or a run) changed this row since you opened it. Reload to see the current values, then edit again."
          : messageOf(thrown),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="cell" aria-labelledby={`${inputId}-label`}>
      <h2 id={`${inputId}-label`}>
        {column.label} {column.key && <span class="tag">identity</span>}
        {override && <span class="tag">overridden</span>}
      </h2>
      <p class="value" data-testid={`value-${column.name}`}>
        {cellText(value)}
      </p>
      {row.missingReasons[column.id] && <p class="muted">Missing: {row.missingReasons[column.id]}</p>}
      {override && <p class="muted">Source value: {cellText(override.value)}</p>}
      <Evidence row={row} fieldId={column.id} />
      <p>
        <a href={`#/datasets/${dataset.id}/changes?row=${row.id}&field=${column.id}`}>Cell history</a>
      </p>
      {!column.key && (
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            try {
              void edit({ values: { [column.id]: parseCell(column, text) } });
            } catch (thrown) {
              setError(messageOf(thrown));
            }
          }}
        >
          <label for={inputId} class="visually-hidden">
            New value for {column.label}
          </label>
          <input id={inputId} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Save {column.label}
          </button>
          {override && (
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => edit({ resetFieldIds: [column.id] })}
            >
              Reset {column.label}
            </button>
          )}
        </form>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </article>
  );
};

/** The excerpts each cell was read from, looked up in the row's observations. */
const Evidence = ({ row, fieldId }: { row: RowDetail; fieldId: string }) => {
  const pointers = row.evidence[fieldId] ?? [];
  if (pointers.length === 0) return null;
  return (
    <details>
      <summary>Evidence ({pointers.length})</summary>
      {pointers.map((pointer) => {
        const observation = row.observations.find((o) => o.id === pointer.observationId);
        const entry = observation?.entries.find((e) => e.id === pointer.entryId);
        return (
          <figure key={`${pointer.observationId}:${pointer.entryId}`} class="evidence">
            <blockquote>
              {entry ? (
                <Excerpt html={entry.excerpt} value={row.data[fieldId]} sourceUrl={observation?.sourceUrl} />
              ) : (
                "(excerpt not recorded)"
              )}
              {entry?.truncated && " …"}
            </blockquote>
            {observation && (
              <figcaption>
                <SourceLink url={observation.sourceUrl} /> · {when(observation.observedAt)}
              </figcaption>
            )}
          </figure>
        );
      })}
    </details>
  );
};
