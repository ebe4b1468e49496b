import type { GleanerClient } from "@gleaner/client";
import { useEffect, useState } from "preact/hooks";
import { ApiError, messageOf, type Schemas, unwrap } from "../api.js";
import { navigate } from "../router.js";
import { type Preview, PreviewRecords, PreviewSummary } from "./preview-view.js";

type Suggestion = Schemas["Suggestion"];
type Source = Schemas["Suggestion"]["source"];
type ColumnType = "string" | "number" | "boolean";

/** One column as the editor holds it: the column and its read together, so a rename renames both. */
interface FieldDraft {
  readonly include: boolean;
  readonly name: string;
  readonly type: ColumnType;
  readonly key: boolean;
  readonly selector: string;
  readonly attribute: string;
  readonly description?: string;
}

interface Draft {
  readonly name: string;
  readonly question: string;
  readonly itemSelector: string;
  readonly nextSelector: string | null;
  readonly fields: ReadonlyArray<FieldDraft>;
}

const draftOf = (s: Suggestion): Draft => ({
  name: s.name,
  question: s.question ?? "",
  itemSelector: s.source.itemSelector,
  nextSelector: s.source.pagination.kind === "next-link" ? s.source.pagination.selector : null,
  fields: s.source.fields.map((field) => {
    const column = s.columns.find((c) => c.name === field.name);
    return {
      include: true,
      name: field.name,
      type: (column?.type ?? "string") as ColumnType,
      key: column?.key ?? false,
      selector: field.read.selector ?? "",
      attribute: field.read.kind === "attribute" ? (field.read.attribute ?? "") : "",
      ...(column?.description ? { description: column.description } : {}),
    };
  }),
});

/** The POST /v1/datasets body the draft stands for (the suggestion's other source settings kept). */
const bodyOf = (draft: Draft, base: Source): Schemas["CreateDatasetRequest"] => {
  const fields = draft.fields.filter((f) => f.include);
  const keys = fields.filter((f) => f.key).map((f) => f.name);
  const source = {
    ...base,
    itemSelector: draft.itemSelector,
    fields: fields.map((f) => ({
      name: f.name,
      read: {
        ...(f.selector.trim() ? { selector: f.selector.trim() } : {}),
        ...(f.attribute.trim()
          ? { kind: "attribute" as const, attribute: f.attribute.trim() }
          : { kind: "text" as const }),
      },
      ...(f.key ? { required: true } : {}),
    })),
    identity:
      keys.length === 1
        ? { kind: "source-key" as const, field: keys[0]! }
        : { kind: "composite" as const, fields: keys },
    pagination:
      draft.nextSelector === null ? base.pagination : { kind: "next-link" as const, selector: draft.nextSelector },
  };
  return {
    name: draft.name,
    ...(draft.question.trim() ? { question: draft.question.trim() } : {}),
    columns: fields.map((f) => ({
      name: f.name,
      type: f.type,
      key: f.key,
      ...(f.description ? { description: f.description } : {}),
    })),
    source,
  };
};

/** How long typing pauses before the preview is asked again (previews are limited per minute). */
const previewDelayMs = 600;

/**
 * A suggestion to adjust before it becomes a dataset: rename or drop columns, choose the key, edit
 * any selector; the preview follows the edits. Problems are shown with the path the API names.
 */
export const SourceEditor = ({
  client,
  suggestion,
  onBack,
}: {
  client: GleanerClient;
  suggestion: Suggestion;
  onBack: () => void;
}) => {
  const [draft, setDraft] = useState<Draft>(() => draftOf(suggestion));
  const [preview, setPreview] = useState<Preview>(suggestion.preview);
  const [problems, setProblems] = useState<string[]>([]);
  const [pending, setPending] = useState(false);
  const [busy, setBusy] = useState(false);
  const body = bodyOf(draft, suggestion.source);
  const request = JSON.stringify({ source: body.source, columns: body.columns });

  useEffect(() => {
    if (request === JSON.stringify({ source: suggestion.source, columns: suggestion.columns })) return;
    setPending(true);
    let current = true;
    const timer = setTimeout(async () => {
      try {
        const answer = await unwrap(client.POST("/v1/sources/preview", { body: JSON.parse(request) }));
        if (!current) return;
        setPreview(answer.preview);
        setProblems([]);
      } catch (thrown) {
        if (!current) return;
        const details = thrown instanceof ApiError ? (thrown.body.details ?? []) : [];
        setProblems(details.length > 0 ? details.map((d) => `${d.path}: ${d.message}`) : [messageOf(thrown)]);
      } finally {
        if (current) setPending(false);
      }
    }, previewDelayMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [request]);

  const edit = (index: number, change: Partial<FieldDraft>) =>
    setDraft({ ...draft, fields: draft.fields.map((f, i) => (i === index ? { ...f, ...change } : f)) });
  const fill = (name: string) => preview.fields.find((f) => f.name === name);

  const create = async () => {
    setBusy(true);
    try {
      const created = await unwrap(client.POST("/v1/datasets", { body }));
      navigate(`#/datasets/${created.dataset.id}`);
    } catch (thrown) {
      const details = thrown instanceof ApiError ? (thrown.body.details ?? []) : [];
      setProblems([messageOf(thrown), ...details.map((d) => `${d.path}: ${d.message}`)]);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="editor-title">
      <div class="title-row">
        <h1 id="editor-title">Adjust and create</h1>
        <button type="button" class="secondary" onClick={onBack}>
          Back to the suggestions
        </button>
      </div>
      <div class="stack">
        <label for="draft-name">Name</label>
        <input
          id="draft-name"
          value={draft.name}
          onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })}
        />
        <label for="draft-item">Each record is (CSS selector)</label>
        <input
          id="draft-item"
          class="code"
          value={draft.itemSelector}
          onInput={(e) => setDraft({ ...draft, itemSelector: e.currentTarget.value })}
        />
        {draft.nextSelector !== null && (
          <>
            <label for="draft-next">Next page link (CSS selector)</label>
            <input
              id="draft-next"
              class="code"
              value={draft.nextSelector}
              onInput={(e) => setDraft({ ...draft, nextSelector: e.currentTarget.value })}
            />
          </>
        )}
      </div>
      <div class="scroll">
        <table aria-label="Columns">
          <thead>
            <tr>
              <th scope="col">Keep</th>
              <th scope="col">Column</th>
              <th scope="col">Type</th>
              <th scope="col">Key</th>
              <th scope="col">Read from (CSS selector)</th>
              <th scope="col">Attribute</th>
              <th scope="col">Filled</th>
            </tr>
          </thead>
          <tbody>
            {draft.fields.map((f, i) => {
              const filled = fill(f.name);
              return (
                <tr key={i}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Keep ${f.name}`}
                      checked={f.include}
                      onChange={(e) => edit(i, { include: e.currentTarget.checked })}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Name of column ${i + 1}`}
                      value={f.name}
                      onInput={(e) => edit(i, { name: e.currentTarget.value })}
                    />
                  </td>
                  <td>
                    <select
                      aria-label={`Type of ${f.name}`}
                      value={f.type}
                      onChange={(e) => edit(i, { type: e.currentTarget.value as ColumnType })}
                    >
                      <option value="string">text</option>
                      <option value="number">number</option>
                      <option value="boolean">yes/no</option>
                    </select>
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`${f.name} is the key`}
                      checked={f.key}
                      onChange={(e) => edit(i, { key: e.currentTarget.checked })}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Selector of ${f.name}`}
                      class="code"
                      value={f.selector}
                      placeholder="(the record itself)"
                      onInput={(e) => edit(i, { selector: e.currentTarget.value })}
                    />
                  </td>
                  <td>
                    <input
                      aria-label={`Attribute of ${f.name}`}
                      class="code"
                      value={f.attribute}
                      placeholder="(its text)"
                      onInput={(e) => edit(i, { attribute: e.currentTarget.value })}
                    />
                  </td>
                  <td class="muted">
                    {f.include && filled ? `${filled.filled}/${filled.filled + filled.missing}` : ""}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h2>
        Preview{" "}
        <span class="muted" aria-live="polite">
          {pending ? "(updating…)" : ""}
        </span>
      </h2>
      {problems.length > 0 && (
        <ul class="error field-errors" role="alert" data-testid="editor-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <PreviewRecords preview={preview} rows={10} label="Preview rows" />
      <PreviewSummary preview={preview} />
      <div>
        <button type="button" disabled={busy || problems.length > 0 || pending} onClick={create}>
          Create dataset
        </button>
      </div>
    </section>
  );
};
