import { useState } from "preact/hooks";
import { clientFor, messageOf, unwrap } from "../api.js";

/** Paste a key; it is checked against the API before it is kept for this tab. */
export const SignIn = ({ onSignedIn }: { onSignedIn: (key: string) => void }) => {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await unwrap(clientFor(key.trim()).GET("/v1/usage"));
      onSignedIn(key.trim());
    } catch (thrown) {
      setError(messageOf(thrown));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Gleaner console</h1>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          placeholder="gl_…"
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          aria-describedby={error ? "sign-in-error" : "sign-in-hint"}
          required
        />
        <p id="sign-in-hint" class="hint">
          Kept in this tab only (sessionStorage) and sent as the bearer credential.
        </p>
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
};
