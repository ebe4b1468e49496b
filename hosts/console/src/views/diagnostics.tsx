import type { GleanerClient } from "@gleaner/client";
import { type Column, messageOf, type Schemas, unwrap } from "../api.js";
import { namingColumns } from "../format.js";
import { useLoad } from "../use-load.js";
import { Awaiting } from "./shared.js";

type RunDiagnostics = Schemas["RunDiagnostics"];

/** The run's figures a person asks about first, each as a label and a number (absent ones left out). */
const figuresOf = (d: RunDiagnostics): ReadonlyArray<readonly [string, number]> => {
  const figures: Array<readonly [string, number | null | undefined]> = [
    ["Pages read", d.observations?.pagesRead ?? d.cost.pagesRead],
    ["Pages not read", d.observations?.pagesNotRead ?? d.cost.pagesNotRead],
    ["Records read", d.observations?.records],
    ["Records without identity", d.observations?.recordsWithoutIdentity],
    ["New rows", d.reconciliation?.new],
    ["Changed rows", d.reconciliation?.changed],
    ["Unchanged rows", d.reconciliation?.unchanged],
    ["Gone rows", d.reconciliation?.gone],
    ["Credits charged", d.cost.pagesCharged],
  ];
  return figures.filter((figure): figure is readonly [string, number] => typeof figure[1] === "number");
};

/**
 * The run's diagnostics for a person: its findings in words, its figures, the cells it left empty
 * by column, and the raw answer behind a disclosure, every field id there named by its column.
 */
export const Diagnostics = ({
  client,
  runId,
  columns,
}: {
  client: GleanerClient;
  runId: string;
  columns: ReadonlyArray<Column>;
}) => {
  const summary = useLoad(
    () =>
      unwrap(client.GET("/v1/runs/{runId}/diagnostics", { params: { path: { runId }, query: { summary: "true" } } })),
    [client, runId],
  );
  const named = (text: string) => namingColumns(text, columns);
  return (
    <section aria-labelledby="diagnostics-title">
      <h2 id="diagnostics-title">Diagnostics summary</h2>
      {summary.error !== undefined ? (
        <p class="muted">{messageOf(summary.error)}</p>
      ) : (
        <Awaiting loaded={summary}>
          {({ diagnostics }) => (
            <div data-testid="diagnostics">
              {diagnostics.findings.length === 0 ? (
                <p class="muted">Nothing went wrong that the run could see.</p>
              ) : (
                <ul class="findings" aria-label="Findings">
                  {diagnostics.findings.map((finding, index) => (
                    <li key={`${finding.code}:${index}`}>{named(finding.message)}</li>
                  ))}
                </ul>
              )}
              <table class="figures" aria-label="Figures">
                <tbody>
                  {figuresOf(diagnostics).map(([label, value]) => (
                    <tr key={label}>
                      <th scope="row">{label}</th>
                      <td>{value}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <MissingCells cells={diagnostics.cells} />
              {diagnostics.unknowns.length > 0 && (
                <ul class="muted" aria-label="What the run could not tell">
                  {diagnostics.unknowns.map((unknown) => (
                    <li key={unknown}>{named(unknown)}</li>
                  ))}
                </ul>
              )}
              <details>
                <summary>Raw diagnostics (columns by name)</summary>
                <pre class="code">{named(JSON.stringify(diagnostics, null, 2))}</pre>
              </details>
            </div>
          )}
        </Awaiting>
      )}
    </section>
  );
};

/** Each column that some rows have no value in: how many, of how many, and why. */
const MissingCells = ({ cells }: { cells: RunDiagnostics["cells"] }) => {
  const missing = cells.filter((cell) => cell.missing > 0);
  if (missing.length === 0) return null;
  return (
    <table aria-label="Empty cells by column">
      <thead>
        <tr>
          <th scope="col">Column</th>
          <th scope="col">Empty</th>
          <th scope="col">Why</th>
        </tr>
      </thead>
      <tbody>
        {missing.map((cell) => (
          <tr key={cell.fieldId}>
            <th scope="row">{cell.label}</th>
            <td>
              {cell.missing} of {cell.observedRows}
            </td>
            <td>
              {Object.entries(cell.reasons)
                .map(([reason, count]) => `${reason.replaceAll("_", " ")} (${count})`)
                .join(", ")}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
};
