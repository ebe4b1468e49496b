import type { GleanerClient } from "@gleaner/client";
import { useEffect, useState } from "preact/hooks";
import { type Column, type Dataset, messageOf, type Schemas, unwrap } from "../api.js";
import { cellText, labelOf, when } from "../format.js";

type ChangePage = Schemas["ChangePage"];
type Revision = ChangePage["data"][number];
const PAGE_SIZE = 100;

interface Props {
  client: GleanerClient;
  dataset: Dataset;
  /** `row` (a row's timeline) and `field` (one cell's timeline, with `row`). */
  query: URLSearchParams;
}

/**
 * The change feed as a timeline, each revision with before → after per changed cell. Pages follow the
 * API's window rules: the first page fixes `through`, later pages pass it with `after` = `nextAfter`.
 */
export const Changes = ({ client, dataset, query }: Props) => {
  const rowId = query.get("row") ?? undefined;
  const fieldId = rowId ? (query.get("field") ?? undefined) : undefined;
  const [revisions, setRevisions] = useState<ReadonlyArray<Revision>>([]);
  const [schemas, setSchemas] = useState<ChangePage["schemas"]>([]);
  const [window, setWindow] = useState<{ through: number; nextAfter: number | null } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async (after?: number, through?: number) => {
    setError(null);
    try {
      const page = await unwrap(
        client.GET("/v1/datasets/{datasetId}/changes", {
          params: {
            path: { datasetId: dataset.id },
            query: {
              limit: PAGE_SIZE,
              ...(after !== undefined ? { after } : {}),
              ...(through !== undefined ? { through } : {}),
              ...(rowId ? { rowId } : {}),
              ...(fieldId ? { fieldId } : {}),
            },
          },
        }),
      );
      setRevisions((previous) => (after === undefined ? page.data : [...previous, ...page.data]));
      setSchemas((previous) => [...previous, ...page.schemas]);
      setWindow({ through: page.through, nextAfter: page.nextAfter });
    } catch (thrown) {
      setError(messageOf(thrown));
    }
  };
  // A new filter starts a new window.
  useEffect(() => {
    void load();
  }, [client, dataset.id, rowId, fieldId]);

  const columnsFor = (revision: Revision): ReadonlyArray<Column> =>
    schemas.find((schema) => schema.version === revision.schemaVersion)?.fields ?? dataset.columns;

  return (
    <section aria-labelledby="changes-title">
      <h2 id="changes-title">
        {fieldId
          ? `History of ${labelOf(dataset.columns, fieldId)} in one row`
          : rowId
            ? "History of one row"
            : "Change feed"}
      </h2>
      {rowId && (
        <p>
          <a href={`#/datasets/${dataset.id}/rows/${rowId}`}>Back to the row</a> ·{" "}
          <a href={`#/datasets/${dataset.id}/changes`}>All changes</a>
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {window && revisions.length === 0 && <p class="muted">No changes yet.</p>}
      <ol class="timeline changes">
        {revisions.map((revision) => (
          <li key={revision.id} class={`revision origin-${revision.origin}`}>
            <p>
              <strong>#{revision.sequence}</strong> {revision.kind} by{" "}
              {revision.origin === "user" ? "a person" : revision.origin} · {when(revision.createdAt)} ·{" "}
              <a href={`#/datasets/${dataset.id}/rows/${revision.rowId}`}>row</a>
            </p>
            <Diff revision={revision} columns={columnsFor(revision)} onlyField={fieldId} />
          </li>
        ))}
      </ol>
      {window?.nextAfter !== null && window !== null && (
        <button type="button" class="secondary" onClick={() => load(window.nextAfter ?? undefined, window.through)}>
          Load more
        </button>
      )}
    </section>
  );
};

const Diff = ({
  revision,
  columns,
  onlyField,
}: {
  revision: Revision;
  columns: ReadonlyArray<Column>;
  onlyField: string | undefined;
}) => {
  const fields = revision.changedFieldIds.filter((id) => !onlyField || id === onlyField);
  if (fields.length === 0) return null;
  return (
    <table class="diff">
      <thead>
        <tr>
          <th scope="col">Cell</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((fieldId) => (
          <tr key={fieldId}>
            <th scope="row">{labelOf(columns, fieldId)}</th>
            <td class="before">{revision.before ? cellText(revision.before[fieldId]) : "—"}</td>
            <td class="after">
              {cellText(revision.data[fieldId])}
              {revision.overrides?.[fieldId] && <span class="tag">override</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
};
