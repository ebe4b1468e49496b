import type { GleanerClient } from "@gleaner/client";
import { useState } from "preact/hooks";
import { type Dataset, unwrap } from "../api.js";
import { cellText, when } from "../format.js";
import { useLoad } from "../use-load.js";
import { Awaiting, Status } from "./shared.js";

const STATUSES = ["new", "changed", "unchanged", "gone"] as const;
type RowStatus = (typeof STATUSES)[number];
const PAGE_SIZE = 50;

/** The current rows, labelled by column, paged with the API cursor, filtered by status and `since`. */
export const Rows = ({ client, dataset }: { client: GleanerClient; dataset: Dataset }) => {
  const [statuses, setStatuses] = useState<ReadonlyArray<RowStatus>>([]);
  const [since, setSince] = useState("");
  const [cursors, setCursors] = useState<ReadonlyArray<string>>([]);
  // Search and sort act on the page shown (the API pages by update time); the pager reads more.
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState<{ readonly fieldId: string; readonly descending: boolean } | null>(null);
  const cursor = cursors.at(-1);
  const sinceIso = since ? new Date(since).toISOString() : undefined;
  const rows = useLoad(
    () =>
      unwrap(
        client.GET("/v1/datasets/{datasetId}/rows", {
          params: {
            path: { datasetId: dataset.id },
            query: {
              limit: PAGE_SIZE,
              ...(cursor ? { cursor } : {}),
              ...(statuses.length ? { status: [...statuses] } : {}),
              ...(sinceIso ? { since: sinceIso } : {}),
            },
          },
        }),
      ),
    [client, dataset.id, cursor, statuses.join(","), sinceIso],
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
        <label for="rows-search">Search this page</label>
        <input id="rows-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
      </fieldset>
      <Awaiting loaded={rows}>
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted">No rows.</p>
          ) : (
            <>
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
                    {shownRows(page.data, search, sort).map((row, index) => (
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
              <nav class="pager" aria-label="Row pages">
                <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
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
            </>
          )
        }
      </Awaiting>
    </div>
  );
};

type Row = { readonly id: string; readonly data: Record<string, unknown> };

/** The page's rows containing `search` in any value, sorted by one column (empty values last). */
const shownRows = <R extends Row>(
  rows: ReadonlyArray<R>,
  search: string,
  sort: { readonly fieldId: string; readonly descending: boolean } | null,
): R[] => {
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
