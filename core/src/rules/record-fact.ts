import type { ExtractedRecord } from "../engine/extract.js";
import type { RecordFact } from "../run-domain.js";

/**
 * What a run's evidence keeps of a record it read: its row key, where it was read and each cell
 * (value, missing reason and the text it came from) in the record's column order. Diagnostics
 * explain a row from these facts, so every kind of run (parsed or researched) records them alike.
 */
export const recordFact = (record: ExtractedRecord): RecordFact => {
  const cells: Array<RecordFact["cells"][number]> = [];
  record.cells.forEach((cell, fieldId) => {
    cells.push({ fieldId, value: cell.value, missingReason: cell.missingReason, raw: cell.raw });
  });
  return { rowKey: record.rowKey, pageUrl: record.pageUrl, index: record.index, cells };
};
