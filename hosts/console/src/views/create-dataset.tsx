import type { GleanerClient } from "@gleaner/client";
import { useState } from "preact/hooks";
import { ApiError, messageOf, type Schemas, unwrap } from "../api.js";
import { navigate } from "../router.js";

type Field = "name" | "question" | "columns" | "source" | "form";

const EXAMPLE_COLUMNS = [
  { name: "link", type: "string", key: true },
  { name: "title", type: "string" },
  { name: "price", type: "number" },
];

const EXAMPLE_SOURCE = {
  version: 1,
  url: "https://example.com/catalogue/page-1.html",
  itemSelector: "article.product_pod",
  fields: [
    { name: "link", read: { selector: "h3 > a", kind: "attribute", attribute: "href" } },
    { name: "title", read: { selector: "h3 > a", kind: "attribute", attribute: "title" }, required: true },
    { name: "price", read: { selector: "p.price_color" }, required: true },
  ],
  identity: { kind: "source-key", field: "link" },
  pagination: { kind: "next-link", selector: "li.next > a" },
};

/** Which form field an API error detail belongs to: the first segment of its JSON pointer. */
const fieldOf = (path: string): Field => {
  const top = path.split("/")[1];
  return top === "name" || top === "question" || top === "columns" || top === "source" ? top : "form";
};

type Errors = Partial<Record<Field, string[]>>;

const parseJson = (text: string, field: Field, errors: Errors): unknown => {
  try {
    return JSON.parse(text);
  } catch (thrown) {
    errors[field] = [`Not valid JSON: ${(thrown as Error).message}`];
    return undefined;
  }
};

/** A form for the request body; the source is edited as JSON, errors land next to the field the API names. */
export const CreateDataset = ({ client }: { client: GleanerClient }) => {
  const [name, setName] = useState("");
  const [question, setQuestion] = useState("");
  const [columns, setColumns] = useState(JSON.stringify(EXAMPLE_COLUMNS, null, 2));
  const [source, setSource] = useState(JSON.stringify(EXAMPLE_SOURCE, null, 2));
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const found: Errors = {};
    const body = {
      name,
      ...(question.trim() ? { question } : {}),
      columns: parseJson(columns, "columns", found),
      source: parseJson(source, "source", found),
    } as Schemas["CreateDatasetRequest"];
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const created = await unwrap(client.POST("/v1/datasets", { body }));
      navigate(`#/datasets/${created.dataset.id}`);
    } catch (thrown) {
      const next: Errors = {};
      if (thrown instanceof ApiError && thrown.body.details?.length) {
        for (const detail of thrown.body.details) {
          const field = fieldOf(detail.path);
          next[field] = [...(next[field] ?? []), `${detail.path || "/"}: ${detail.message}`];
        }
      }
      next.form = [messageOf(thrown)];
      setErrors(next);
    } finally {
      setBusy(false);
    }
  };

  const problems = (field: Field) =>
    errors[field] && (
      <ul id={`${field}-errors`} class="error field-errors">
        {errors[field]?.map((message) => (
          <li key={message}>{message}</li>
        ))}
      </ul>
    );
  const describedBy = (field: Field) => (errors[field] ? `${field}-errors` : undefined);

  return (
    <section aria-labelledby="new-title">
      <div class="title-row">
        <h1 id="new-title">New dataset (advanced)</h1>
        <a href="#/datasets/new">Start from a page's address instead</a>
      </div>
      <form class="stack" onSubmit={submit} noValidate>
        <label for="dataset-name">Name</label>
        <input
          id="dataset-name"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={describedBy("name")}
        />
        {problems("name")}
        <label for="dataset-question">Question (optional)</label>
        <input
          id="dataset-question"
          value={question}
          onInput={(e) => setQuestion(e.currentTarget.value)}
          aria-describedby={describedBy("question")}
        />
        {problems("question")}
        <label for="dataset-columns">Columns (JSON)</label>
        <textarea
          id="dataset-columns"
          class="code"
          rows={8}
          spellcheck={false}
          value={columns}
          onInput={(e) => setColumns(e.currentTarget.value)}
          aria-invalid={errors.columns ? true : undefined}
          aria-describedby={describedBy("columns")}
        />
        {problems("columns")}
        <label for="dataset-source">Source (JSON)</label>
        <textarea
          id="dataset-source"
          class="code"
          rows={18}
          spellcheck={false}
          value={source}
          onInput={(e) => setSource(e.currentTarget.value)}
          aria-invalid={errors.source ? true : undefined}
          aria-describedby={describedBy("source")}
        />
        {problems("source")}
        {errors.form && (
          <p class="error" role="alert">
            {errors.form.join(" ")}
          </p>
        )}
        <div>
          <button type="submit" disabled={busy}>
            Create dataset
          </button>
        </div>
      </form>
    </section>
  );
};
