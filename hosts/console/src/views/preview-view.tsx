import type { Schemas } from "../api.js";

export type Preview = Schemas["Preview"];

const shown = (value: unknown) => (value === null || value === undefined ? "" : String(value));

/** A preview's first records as a table (text only: these are a page's contents). */
export const PreviewRecords = ({ preview, rows = 5, label }: { preview: Preview; rows?: number; label: string }) => {
  const names = preview.fields.map((f) => f.name);
  if (preview.records.length === 0) return <p class="muted">No records were read.</p>;
  return (
    <div class="scroll">
      <table aria-label={label}>
        <thead>
          <tr>
            {names.map((name) => (
              <th key={name} scope="col">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {preview.records.slice(0, rows).map((record) => (
            <tr key={`${record.pageUrl} ${record.index}`}>
              {names.map((name) => (
                <td key={name} class={record.missingReasons[name] ? "muted" : undefined}>
                  {record.missingReasons[name] ? `(${record.missingReasons[name]})` : shown(record.values[name])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};

/** The checks, the cost of a run when known, failed reads and warnings (each naming what to change). */
export const PreviewSummary = ({ preview }: { preview: Preview }) => {
  const read = preview.pages.filter((p) => p.status === "read").length;
  const records = preview.pages.reduce((sum, p) => sum + p.records, 0);
  return (
    <div class="preview-summary" data-testid="preview-summary">
      <p>
        {read} {read === 1 ? "page" : "pages"} read, {records} records.{" "}
        {preview.estimate.complete
          ? `A run reads ${preview.estimate.pages} pages and costs ${preview.estimate.credits} credits.`
          : "The cost of a run is known once the preview reaches the last page."}
      </p>
      <ul class="checks" aria-label="Checks">
        {preview.checks.map((check) => (
          <li key={check.checkId} class={check.passed ? "status-succeeded" : "status-failed"}>
            {check.passed ? "✓" : "✗"} {check.checkId}
            {!check.passed && check.message ? `: ${check.message}` : ""}
          </li>
        ))}
      </ul>
      {preview.pages
        .filter((p) => p.status === "failed")
        .map((p) => (
          <p key={p.url} class="error">
            {p.url} could not be read ({p.readFailure?.reason}).
          </p>
        ))}
      {preview.warnings.length > 0 && (
        <ul class="warnings" aria-label="Warnings">
          {preview.warnings.map((w) => (
            <li key={`${w.code} ${w.message}`}>{w.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
};
