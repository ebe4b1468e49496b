import type { GleanerClient } from "@gleaner/client";
import { useState } from "preact/hooks";
import { type Dataset, messageOf, unwrap } from "../api.js";
import { when } from "../format.js";
import { navigate } from "../router.js";
import { useLoad } from "../use-load.js";
import { Awaiting, Status } from "./shared.js";

/** Runs newest first with the credits each one cost (from the ledger), and buttons to start one. */
export const Runs = ({
  client,
  dataset,
  onRunStarted,
}: {
  client: GleanerClient;
  dataset: Dataset;
  onRunStarted: () => void;
}) => {
  const [error, setError] = useState<string | null>(null);
  const runs = useLoad(
    () =>
      Promise.all([
        unwrap(client.GET("/v1/datasets/{datasetId}/runs", { params: { path: { datasetId: dataset.id } } })),
        unwrap(client.GET("/v1/usage")),
      ]).then(([list, usage]) => {
        const credits = new Map<string, number>();
        for (const entry of usage.entries) {
          if (entry.runId) credits.set(entry.runId, (credits.get(entry.runId) ?? 0) + entry.amount);
        }
        return { runs: list.data, credits };
      }),
    [client, dataset.id],
  );
  const start = async (kind: "deterministic" | "research") => {
    setError(null);
    try {
      const started = await unwrap(
        client.POST("/v1/datasets/{datasetId}/runs", { params: { path: { datasetId: dataset.id } }, body: { kind } }),
      );
      onRunStarted();
      navigate(`#/runs/${started.runId}`);
    } catch (thrown) {
      setError(messageOf(thrown));
    }
  };
  return (
    <div>
      <div class="actions">
        <button type="button" onClick={() => start("deterministic")}>
          Start run
        </button>
        <button type="button" class="secondary" onClick={() => start("research")}>
          Start research run
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <Awaiting loaded={runs}>
        {({ runs: list, credits }) =>
          list.length === 0 ? (
            <p class="muted">No runs yet.</p>
          ) : (
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Run</th>
                    <th scope="col">Status</th>
                    <th scope="col">Queued</th>
                    <th scope="col">Completed</th>
                    <th scope="col">New / changed / gone</th>
                    <th scope="col">Credits</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((run) => (
                    <tr key={run.id}>
                      <td>
                        <a href={`#/runs/${run.id}`}>{run.id.slice(0, 8)}</a>
                      </td>
                      <td>
                        <Status status={run.status} />
                      </td>
                      <td>{when(run.queuedAt)}</td>
                      <td>{when(run.completedAt)}</td>
                      <td>
                        {run.rowDeltas.new} / {run.rowDeltas.changed} / {run.rowDeltas.gone}
                      </td>
                      <td>{Math.abs(credits.get(run.id) ?? 0)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Awaiting>
    </div>
  );
};
