import type { GleanerClient } from "@gleaner/client";
import { useEffect, useState } from "preact/hooks";
import { messageOf, type Schemas, unwrap } from "../api.js";
import { when } from "../format.js";
import { useLoad } from "../use-load.js";
import { Awaiting } from "./shared.js";

type Webhook = Schemas["Webhook"];
const EVENTS = ["run.finished", "rows.changed", "run.held"] as const;
/** How often an open webhooks page reads each webhook's deliveries again, so attempts and retries show as they happen. */
const DELIVERIES_POLL_MS = 3_000;

/** Webhooks: register one (its signing secret shown once), see each one's deliveries and retries, delete it. */
export const Webhooks = ({ client }: { client: GleanerClient }) => {
  const webhooks = useLoad(() => unwrap(client.GET("/v1/webhooks")), [client]);
  const datasets = useLoad(() => unwrap(client.GET("/v1/datasets", { params: { query: { limit: 100 } } })), [client]);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<ReadonlyArray<string>>(["run.finished"]);
  const [datasetId, setDatasetId] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const register = async () => {
    setError(null);
    try {
      const created = await unwrap(
        client.POST("/v1/webhooks", {
          body: {
            url,
            events: [...events] as Array<(typeof EVENTS)[number]>,
            ...(datasetId ? { datasetId } : {}),
          },
        }),
      );
      setSecret(created.secret);
      setUrl("");
      webhooks.reload();
    } catch (thrown) {
      setError(messageOf(thrown));
    }
  };
  const datasetName = (id: string | null) =>
    id === null ? "every dataset" : (datasets.data?.data.find((d) => d.id === id)?.name ?? "a dataset");
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p class="muted">
        Gleaner posts signed events (Standard Webhooks) to your address when a run finishes, rows change or a run is
        held, and retries for about a day.
      </p>
      <form
        class="stack"
        aria-label="Register a webhook"
        onSubmit={(event) => {
          event.preventDefault();
          void register();
        }}
      >
        <label for="webhook-url">Address (https)</label>
        <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <fieldset class="filters">
          <legend>Events</legend>
          {EVENTS.map((name) => (
            <label key={name} class="check">
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={() => setEvents(events.includes(name) ? events.filter((e) => e !== name) : [...events, name])}
              />
              {name}
            </label>
          ))}
        </fieldset>
        <label for="webhook-dataset">For</label>
        <select id="webhook-dataset" value={datasetId} onChange={(e) => setDatasetId(e.currentTarget.value)}>
          <option value="">every dataset</option>
          {datasets.data?.data.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
        <button type="submit">Register</button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {secret && (
        <p class="notice" role="status">
          Signing secret, shown only now: <code data-testid="webhook-secret">{secret}</code>. Verify deliveries with it.
        </p>
      )}
      <Awaiting loaded={webhooks}>
        {({ webhooks: list }) =>
          list.length === 0 ? (
            <p class="muted">No webhooks.</p>
          ) : (
            <ul class="webhooks">
              {list.map((webhook) => (
                <WebhookItem
                  key={webhook.id}
                  client={client}
                  webhook={webhook}
                  scope={datasetName(webhook.datasetId)}
                  onDeleted={webhooks.reload}
                />
              ))}
            </ul>
          )
        }
      </Awaiting>
    </section>
  );
};

const WebhookItem = ({
  client,
  webhook,
  scope,
  onDeleted,
}: {
  client: GleanerClient;
  webhook: Webhook;
  scope: string;
  onDeleted: () => void;
}) => {
  const deliveries = useLoad(
    () => unwrap(client.GET("/v1/webhooks/{webhookId}/deliveries", { params: { path: { webhookId: webhook.id } } })),
    [client, webhook.id],
  );
  // Read again while the page is open; leaving the page (or deleting the webhook) stops it.
  const { reload } = deliveries;
  useEffect(() => {
    const timer = setInterval(reload, DELIVERIES_POLL_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const remove = async () => {
    await client.DELETE("/v1/webhooks/{webhookId}", { params: { path: { webhookId: webhook.id } } });
    onDeleted();
  };
  return (
    <li>
      <article aria-label={`Webhook ${webhook.url}`}>
        <p>
          <code>{webhook.url}</code> · {webhook.events.join(", ")} · {scope} · since {when(webhook.createdAt)}{" "}
          <button type="button" class="secondary" onClick={() => void remove()}>
            Delete
          </button>
        </p>
        <Awaiting loaded={deliveries}>
          {({ deliveries: list }) =>
            list.length === 0 ? (
              <p class="muted">No deliveries yet.</p>
            ) : (
              <table aria-label={`Deliveries to ${webhook.url}`}>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Event</th>
                    <th scope="col">Attempt</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Answer</th>
                    <th scope="col">Next retry</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((d) => (
                    <tr key={`${d.messageId}:${d.attempt}`}>
                      <td>{when(d.attemptedAt)}</td>
                      <td>{d.eventType}</td>
                      <td>{d.attempt}</td>
                      <td>{d.status}</td>
                      <td>{d.responseStatus !== null ? `HTTP ${d.responseStatus}` : (d.error ?? "—")}</td>
                      <td>{when(d.nextRetryAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Awaiting>
      </article>
    </li>
  );
};
