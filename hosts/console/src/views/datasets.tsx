import type { GleanerClient } from "@gleaner/client";
import { useState } from "preact/hooks";
import { unwrap } from "../api.js";
import { when } from "../format.js";
import { useLoad } from "../use-load.js";
import { Awaiting, Status } from "./shared.js";

const PAGE_SIZE = 20;

/** Newest first, paged with the API's opaque cursor (a stack of cursors walks back). */
export const Datasets = ({ client }: { client: GleanerClient }) => {
  const [cursors, setCursors] = useState<ReadonlyArray<string>>([]);
  const cursor = cursors.at(-1);
  const page = useLoad(
    () =>
      unwrap(client.GET("/v1/datasets", { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } })),
    [client, cursor],
  );
  return (
    <section aria-labelledby="datasets-title">
      <div class="title-row">
        <h1 id="datasets-title">Datasets</h1>
        <a class="button" href="#/datasets/new">
          New dataset
        </a>
      </div>
      <Awaiting loaded={page}>
        {(list) =>
          list.data.length === 0 ? (
            <p class="muted">No datasets yet.</p>
          ) : (
            <>
              <div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Status</th>
                      <th scope="col">Rows</th>
                      <th scope="col">Last run</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.data.map((dataset) => (
                      <tr key={dataset.id}>
                        <td>
                          <a href={`#/datasets/${dataset.id}`}>{dataset.name}</a>
                        </td>
                        <td>
                          <Status status={dataset.status} />
                        </td>
                        <td>{dataset.rowCount}</td>
                        <td>{dataset.lastRun ? <Status status={dataset.lastRun.status} /> : "—"}</td>
                        <td>{when(dataset.createdAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <nav class="pager" aria-label="Dataset pages">
                <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
                  Previous page
                </button>
                <button
                  type="button"
                  disabled={list.nextCursor === null}
                  onClick={() => list.nextCursor && setCursors([...cursors, list.nextCursor])}
                >
                  Next page
                </button>
              </nav>
            </>
          )
        }
      </Awaiting>
    </section>
  );
};
