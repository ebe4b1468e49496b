import type { GleanerClient } from "@gleaner/client";
import { useMemo, useState } from "preact/hooks";
import { clientFor, forgetKey, storedKey, storeKey } from "./api.js";
import { useLocation } from "./router.js";
import { CreateDataset } from "./views/create-dataset.js";
import { DatasetPage } from "./views/dataset.js";
import { Datasets } from "./views/datasets.js";
import { NewFromUrl } from "./views/new-from-url.js";
import { RowPage } from "./views/row.js";
import { RunPage } from "./views/run.js";
import { SignIn } from "./views/sign-in.js";
import { Usage } from "./views/usage.js";
import { Keys } from "./views/keys.js";
import { Webhooks } from "./views/webhooks.js";

export const App = () => {
  const [apiKey, setApiKey] = useState<string | null>(storedKey);
  const client = useMemo(() => (apiKey ? clientFor(apiKey) : null), [apiKey]);
  const { route, query } = useLocation();
  if (!client) {
    return (
      <SignIn
        onSignedIn={(key) => {
          storeKey(key);
          setApiKey(key);
        }}
      />
    );
  }
  const signOut = () => {
    forgetKey();
    setApiKey(null);
  };
  return (
    <>
      <header class="bar">
        <a class="brand" href="#/datasets">
          Gleaner
        </a>
        <nav aria-label="Main">
          <a href="#/datasets" aria-current={route.page === "datasets" ? "page" : undefined}>
            Datasets
          </a>
          <a href="#/webhooks" aria-current={route.page === "webhooks" ? "page" : undefined}>
            Webhooks
          </a>
          <a href="#/keys" aria-current={route.page === "keys" ? "page" : undefined}>
            Keys
          </a>
          <a href="#/usage" aria-current={route.page === "usage" ? "page" : undefined}>
            Usage
          </a>
        </nav>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        <Page client={client} route={route} query={query} />
      </main>
    </>
  );
};

const Page = ({
  client,
  route,
  query,
}: {
  client: GleanerClient;
  route: ReturnType<typeof useLocation>["route"];
  query: URLSearchParams;
}) => {
  switch (route.page) {
    case "datasets":
      return <Datasets client={client} />;
    case "new-dataset":
      return query.get("advanced") === "1" ? <CreateDataset client={client} /> : <NewFromUrl client={client} />;
    case "dataset":
      return <DatasetPage client={client} datasetId={route.datasetId} tab={route.tab} query={query} />;
    case "row":
      return <RowPage client={client} datasetId={route.datasetId} rowId={route.rowId} />;
    case "run":
      return <RunPage client={client} runId={route.runId} />;
    case "usage":
      return <Usage client={client} />;
    case "webhooks":
      return <Webhooks client={client} />;
    case "keys":
      return <Keys client={client} />;
  }
};
