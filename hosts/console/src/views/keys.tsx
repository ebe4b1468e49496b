import type { GleanerClient } from "@gleaner/client";
import { useState } from "preact/hooks";
import { messageOf, unwrap } from "../api.js";
import { when } from "../format.js";
import { useLoad } from "../use-load.js";
import { Awaiting } from "./shared.js";

/**
 * Your API keys: each by its first and last characters, name and last use; a new one (its secret
 * shown once); revoke one, refused at once everywhere. The key this tab signed in with is marked.
 */
export const Keys = ({ client, signedInWith }: { client: GleanerClient; signedInWith?: string | null }) => {
  const keys = useLoad(() => unwrap(client.GET("/v1/keys")), [client]);
  const [name, setName] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const create = async () => {
    setError(null);
    try {
      const created = await unwrap(client.POST("/v1/keys", { body: name.trim() ? { name: name.trim() } : {} }));
      setSecret(created.secret);
      setName("");
      keys.reload();
    } catch (thrown) {
      setError(messageOf(thrown));
    }
  };
  const revoke = async (keyId: string) => {
    setError(null);
    const { error: failed } = await client.DELETE("/v1/keys/{keyId}", { params: { path: { keyId } } });
    if (failed) setError(`${failed.error.message} (${failed.error.code})`);
    keys.reload();
  };
  const current = signedInWith ?? sessionStorage.getItem("gleaner.apiKey");
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <form
        class="inline"
        aria-label="Create a key"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <label for="key-name">Name (optional)</label>
        <input id="key-name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit">Create a key</button>
      </form>
      {secret && (
        <p class="notice" role="status">
          The new key, shown only now: <code data-testid="new-key">{secret}</code>. Gleaner keeps only its hash.
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <Awaiting loaded={keys}>
        {({ keys: list }) => (
          <div class="scroll">
            <table aria-label="Your keys">
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Name</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col" />
                </tr>
              </thead>
              <tbody>
                {list.map((key) => {
                  const mine =
                    current !== null &&
                    key.prefix !== null &&
                    current.startsWith(key.prefix) &&
                    current.endsWith(key.lastFour ?? "");
                  return (
                    <tr key={key.id ?? key.createdAt}>
                      <td>
                        <code>{key.prefix && key.lastFour ? `${key.prefix}…${key.lastFour}` : "(older key)"}</code>
                        {mine && <span class="tag">this tab</span>}
                      </td>
                      <td>{key.name ?? "—"}</td>
                      <td>{when(key.createdAt)}</td>
                      <td>{when(key.lastUsedAt)}</td>
                      <td>
                        {key.id && (
                          <button type="button" class="secondary" onClick={() => void revoke(key.id as string)}>
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Awaiting>
    </section>
  );
};
