import type { GleanerClient } from "@gleaner/client";
import { unwrap } from "../api.js";
import { when } from "../format.js";
import { useLoad } from "../use-load.js";
import { Awaiting } from "./shared.js";

/** The balance and the ledger of the last 30 days. */
export const Usage = ({ client }: { client: GleanerClient }) => {
  const usage = useLoad(() => unwrap(client.GET("/v1/usage")), [client]);
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <Awaiting loaded={usage}>
        {({ balance, entries }) => (
          <>
            <p class="balance">
              Balance: <strong data-testid="balance">{balance}</strong> credits
            </p>
            <h2>Ledger, last 30 days</h2>
            {entries.length === 0 ? (
              <p class="muted">No entries.</p>
            ) : (
              <div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Amount</th>
                      <th scope="col">Pages</th>
                      <th scope="col">Run</th>
                    </tr>
                  </thead>
                  <tbody>
                    {entries.map((entry) => (
                      <tr key={entry.id}>
                        <td>{when(entry.createdAt)}</td>
                        <td>{entry.kind}</td>
                        <td>{entry.amount}</td>
                        <td>{entry.pages ?? "—"}</td>
                        <td>{entry.runId ? <a href={`#/runs/${entry.runId}`}>{entry.runId.slice(0, 8)}</a> : "—"}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </Awaiting>
    </section>
  );
};
