// Observation documents and page records kept as text (migration 0017, decision 0035): the server no
// longer checks their JSON on the way in. Rows written before keep theirs in json columns; reads take
// whichever a row has, as text, and the host parses it.

/** An observation's document as text (alias o). */
export const observationDocument = "coalesce(o.document_text, o.document::text)";

/** A page's records as text (alias k). */
export const pageRecordsText = "coalesce(k.records_text, k.records::text)";

/**
 * The value of JSON text read back; text that is not JSON (which only a hand-made row can hold)
 * answers as itself, so the decoder that follows refuses it, naming the record.
 */
export const parsedJson = (text: string | null): unknown => {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};
