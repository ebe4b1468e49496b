import type { GleanerClient } from "@gleaner/client";
import { useState } from "preact/hooks";
import { messageOf, type Schemas, unwrap } from "../api.js";
import { PreviewRecords, PreviewSummary } from "./preview-view.js";
import { SourceEditor } from "./source-editor.js";

type Suggestion = Schemas["Suggestion"];
type Answer = Schemas["SuggestResponse"];

/**
 * "New dataset" starts with a URL: the page's suggested sources as tables of the rows they read;
 * the one picked opens in the editor. The JSON form stays, as "advanced".
 */
export const NewFromUrl = ({ client }: { client: GleanerClient }) => {
  const [url, setUrl] = useState("");
  const [question, setQuestion] = useState("");
  const [render, setRender] = useState<"static" | "browser">("static");
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [picked, setPicked] = useState<Suggestion | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (picked) return <SourceEditor client={client} suggestion={picked} onBack={() => setPicked(null)} />;

  const suggest = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const body = { url: url.trim(), ...(question.trim() ? { question: question.trim() } : {}), render };
      setAnswer(await unwrap(client.POST("/v1/sources/suggest", { body })));
    } catch (thrown) {
      setError(messageOf(thrown));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="new-title">
      <div class="title-row">
        <h1 id="new-title">New dataset</h1>
        <a href="#/datasets/new?advanced=1">Advanced: write the JSON</a>
      </div>
      <form class="stack" onSubmit={suggest}>
        <label for="page-url">Address of a page that lists what you want</label>
        <input
          id="page-url"
          type="url"
          value={url}
          placeholder="https://…"
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <label for="page-question">What do you want to know? (optional)</label>
        <input id="page-question" value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
        <label class="check">
          <input
            type="checkbox"
            checked={render === "browser"}
            onChange={(e) => setRender(e.currentTarget.checked ? "browser" : "static")}
          />
          The list appears only with JavaScript (read it in a browser)
        </label>
        <div>
          <button type="submit" disabled={busy || url.trim() === ""}>
            {busy ? "Reading the page…" : "Suggest"}
          </button>
        </div>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {answer && answer.page.status === "failed" && (
        <p class="error" role="alert">
          The page could not be read ({answer.page.readFailure?.reason}).
        </p>
      )}
      {answer && answer.page.status === "read" && answer.suggestions.length === 0 && (
        <p role="status">
          This page holds no repeated records to suggest. Try a page that lists them, or write the source yourself.
        </p>
      )}
      {answer?.suggestions.map((suggestion, i) => (
        <article key={suggestion.source.itemSelector} class="suggestion" aria-label={`Suggestion ${i + 1}`}>
          <h2>
            {i + 1}. {suggestion.source.itemSelector}
          </h2>
          <p class="muted">{suggestion.why}</p>
          <PreviewRecords preview={suggestion.preview} label={`Rows of suggestion ${i + 1}`} />
          <PreviewSummary preview={suggestion.preview} />
          <button type="button" onClick={() => setPicked(suggestion)}>
            Use suggestion {i + 1}
          </button>
        </article>
      ))}
    </section>
  );
};
