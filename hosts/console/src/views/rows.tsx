import type { GleanerClient } from "@gleaner/client";
import { useState } from "preact/hooks";
import { type Dataset, unwrap } from "../api.js";
import { cellText, when } from "../format.js";
import { useLoad } from "../use-load.js";
import { Awaiting, Status } from "./shared.js";

const STATUSES = ["new", "changed", "unchanged", "gone"] as const;
type RowStatus = (typeof STATUSES)[number];
const PAGE_SIZE = 50;
/** Search and sort read every row up to this many (newest first), 500 a request; more says so. */
const ROWS_SEARCHED = 5_000;
/** A search shows at most this many matches, so a broad one stays a table a browser can draw. */
const MATCHES_SHOWN = 500;

type Sort = { readonly fieldId: string; readonly descending: boolean };

/** The current rows, labelled by column, paged with the API cursor, filtered by status and `since`. */
export const Rows = ({ client, dataset }: { client: GleanerClient; dataset: Dataset }) => {
  const [statuses, setStatuses] = useState<ReadonlyArray<RowStatus>>([]);
  const [since, setSince] = useState("");
  const [cursors, setCursors] = useState<ReadonlyArray<string>>([]);
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState<Sort | null>(null);
  // Searching or sorting reads every row (the API pages by update time only); otherwise one page.
  const everyRow = search.trim() !== "" || sort !== null;
  const cursor = everyRow ? undefined : cursors.at(-1);
  const sinceIso = since ? new Date(since).toISOString() : undefined;
  const pageOf = (limit: number, from: string | undefined) =>
    unwrap(
      client.GET("/v1/datasets/{datasetId}/rows", {
        params: {
          path: { datasetId: dataset.id },
          query: {
            limit,
            ...(from ? { cursor: from } : {}),
            ...(statuses.length ? { status: [...statuses] } : {}),
            ...(sinceIso ? { since: sinceIso } : {}),
          },
        },
      }),
    );
  const rows = useLoad(
    async (signal) => {
      if (!everyRow) return { ...(await pageOf(PAGE_SIZE, cursor)), capped: false };
      const data: Array<Awaited<ReturnType<typeof pageOf>>["data"][number]> = [];
      let next: string | null | undefined;
      do {
        const page = await pageOf(500, next ?? undefined);
        data.push(...page.data);
        next = page.nextCursor;
      } while (next && data.length < ROWS_SEARCHED && !signal.aborted);
      return { data, nextCursor: null, capped: Boolean(next) };
    },
    [client, dataset.id, cursor, statuses.join(","), sinceIso, everyRow],
  );
  const toggle = (status: RowStatus) => {
    setCursors([]);
    setStatuses(statuses.includes(status) ? statuses.filter((s) => s !== status) : [...statuses, status]);
  };
  return (
    <div>
      <fieldset class="filters">
        <legend>Filter rows</legend>
        {STATUSES.map((status) => (
          <label key={status} class="check">
            <input type="checkbox" checked={statuses.includes(status)} onChange={() => toggle(status)} />
            {status}
          </label>
        ))}
        <label for="rows-since">Updated since</label>
        <input
          id="rows-since"
          type="datetime-local"
          value={since}
          onInput={(e) => {
            setCursors([]);
            setSince(e.currentTarget.value);
          }}
        />
        <label for="rows-search">Search rows</label>
        <input id="rows-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        {everyRow && (
          <button
            type="button"
            onClick={() => {
              setSearch("");
              setSort(null);
            }}
          >
            Back to pages
          </button>
        )}
      </fieldset>
      <Awaiting loaded={rows}>
        {(page) => {
          const found = shownRows(page.data, search, sort);
          return page.data.length === 0 ? (
            <p class="muted">No rows.</p>
          ) : (
            <>
              {everyRow && (
                <p class="muted" role="status">
                  {found.length} of {page.data.length} rows
                  {page.capped ? ` (the ${ROWS_SEARCHED.toLocaleString("en")} updated last)` : ""}
                  {found.length > MATCHES_SHOWN ? `; the first ${MATCHES_SHOWN} shown` : ""}.
                </p>
              )}
              <div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Row</th>
                      {dataset.columns.map((column) => (
                        <th
                          scope="col"
                          key={column.id}
                          aria-sort={
                            sort?.fieldId === column.id ? (sort.descending ? "descending" : "ascending") : undefined
                          }
                        >
                          <button
                            type="button"
                            class="sort"
                            onClick={() =>
                              setSort({
                                fieldId: column.id,
                                descending: sort?.fieldId === column.id ? !sort.descending : false,
                              })
                            }
                          >
                            {column.label}
                          </button>
                        </th>
                      ))}
                      <th scope="col">Status</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {found.slice(0, MATCHES_SHOWN).map((row, index) => (
                      <tr key={row.id}>
                        <td>
                          <a href={`#/datasets/${dataset.id}/rows/${row.id}`} aria-label={`Open row ${index + 1}`}>
                            Open
                          </a>
                        </td>
                        {dataset.columns.map((column) => (
                          <td key={column.id}>{cellText(row.data[column.id])}</td>
                        ))}
                        <td>
                          <Status status={row.status} />
                        </td>
                        <td>{when(row.updatedAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {!everyRow && (
                <nav class="pager" aria-label="Row pages">
                  <button
                    type="button"
                    disabled={cursors.length === 0}
                    onClick={() => setCursors(cursors.slice(0, -1))}
                  >
                    Previous page
                  </button>
                  <button
                    type="button"
                    disabled={page.nextCursor === null}
                    onClick={() => page.nextCursor && setCursors([...cursors, page.nextCursor])}
                  >
                    Next page
                  </button>
                </nav>
              )}
            </>
          );
        }}
      </Awaiting>
    </div>
  );
};

type Row = { readonly id: string; readonly data: Record<string, unknown> };

/** The rows containing `search` in any value, sorted by one column (empty values last). */
const shownRows = <R extends Row>(rows: ReadonlyArray<R>, search: string, sort: Sort | null): R[] => {
  const needle = search.trim().toLowerCase();
  const found = needle
    ? rows.filter((row) =>
        Object.values(row.data).some((v) =>
          String(v ?? "")
            .toLowerCase()
            .includes(needle),
        ),
      )
    : [...rows];
  if (!sort) return found;
  const direction = sort.descending ? -1 : 1;
  return found.sort((a, b) => {
    const [x, y] = [a.data[sort.fieldId], b.data[sort.fieldId]];
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * direction;
  });
};
