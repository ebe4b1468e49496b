import type { GleanerClient } from "@gleaner/client";
import { useEffect, useRef, useState } from "preact/hooks";
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
 * The change feed as a timeline, each revision with before → after per changed cell. The dataset's
 * feed reads newest first: sequences are per dataset and a window is `after < sequence <= through`,
 * so the newest page is (last - 100, last] and each older one the 100 sequences below. A row's or a
 * cell's timeline, and the feed filtered by one column (sparse sequences), read oldest first with
 * the API's own window paging.
 */
export const Changes = ({ client, dataset, query }: Props) => {
  const rowId = query.get("row") ?? undefined;
  const fieldId = rowId ? (query.get("field") ?? undefined) : undefined;
  // The dataset's feed shown for one column: filtered by the API (every change, not only those loaded).
  const [column, setColumn] = useState("");
  const newestFirst = rowId === undefined && column === "";
  const [revisions, setRevisions] = useState<ReadonlyArray<Revision>>([]);
  const [schemas, setSchemas] = useState<ChangePage["schemas"]>([]);
  // What "Load more" asks for next; null when everything is shown.
  const [more, setMore] = useState<{ after: number; through: number } | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const fetchPage = (span: { after?: number; through?: number; limit?: number }) =>
    unwrap(
      client.GET("/v1/datasets/{datasetId}/changes", {
        params: {
          path: { datasetId: dataset.id },
          query: {
            limit: span.limit ?? PAGE_SIZE,
            ...(span.after !== undefined ? { after: span.after } : {}),
            ...(span.through !== undefined ? { through: span.through } : {}),
            ...(rowId ? { rowId } : {}),
            ...(fieldId ? { fieldId } : {}),
            ...(column ? { changedFieldId: column } : {}),
          },
        },
      }),
    );

  // Bumped when the filter changes: an answer for an earlier filter, arriving late, is dropped.
  const filterNumber = useRef(0);
  const load = async (next?: { after: number; through: number }) => {
    const asked = filterNumber.current;
    setError(null);
    try {
      let range = next;
      if (!range && newestFirst) {
        const { through } = await fetchPage({ limit: 1 });
        range = { after: Math.max(0, through - PAGE_SIZE), through };
      }
      const page = await fetchPage(range ?? {});
      if (asked !== filterNumber.current) return;
      const fresh = newestFirst ? [...page.data].reverse() : page.data;
      setRevisions((previous) => (next === undefined ? fresh : [...previous, ...fresh]));
      setSchemas((previous) => [...previous, ...page.schemas]);
      if (newestFirst && range) {
        setMore(range.after > 0 ? { after: Math.max(0, range.after - PAGE_SIZE), through: range.after } : null);
      } else {
        setMore(page.nextAfter !== null ? { after: page.nextAfter, through: page.through } : null);
      }
      setLoaded(true);
    } catch (thrown) {
      if (asked === filterNumber.current) setError(messageOf(thrown));
    }
  };
  // A new filter starts a new window.
  useEffect(() => {
    filterNumber.current++;
    setLoaded(false);
    setRevisions([]);
    setMore(null);
    void load();
  }, [client, dataset.id, rowId, fieldId, column]);

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
      {loaded && revisions.length === 0 && (
        <p class="muted">{column ? "No changes to this column." : "No changes yet."}</p>
      )}
      {rowId === undefined && (
        <p class="muted">
          {column ? "Oldest first." : "Newest first."} <label for="changes-column">Only changes to</label>{" "}
          <select id="changes-column" value={column} onChange={(e) => setColumn(e.currentTarget.value)}>
            <option value="">any column</option>
            {dataset.columns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </p>
      )}
      <ol class="timeline changes">
        {revisions.map((revision) => (
          <li key={revision.id} class={`revision origin-${revision.origin}`}>
            <p>
              <strong>#{revision.sequence}</strong> {revision.kind} by{" "}
              {revision.origin === "user" ? "a person" : revision.origin} · {when(revision.createdAt)} ·{" "}
              <a href={`#/datasets/${dataset.id}/rows/${revision.rowId}`}>row</a>
            </p>
            <Diff revision={revision} columns={columnsFor(revision)} onlyField={fieldId ?? (column || undefined)} />
          </li>
        ))}
      </ol>
      {more && (
        <button type="button" class="secondary" onClick={() => load(more)}>
          {newestFirst ? "Load older changes" : "Load more"}
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
