import { useEffect, useState } from "preact/hooks";

/**
 * Hash routes (#/datasets/…): the server only ever serves `/`, and ids (never the key) are all a URL
 * carries.
 */
export type Route =
  | { readonly page: "datasets" }
  | { readonly page: "new-dataset" }
  | { readonly page: "dataset"; readonly datasetId: string; readonly tab: "rows" | "runs" | "changes" }
  | { readonly page: "row"; readonly datasetId: string; readonly rowId: string }
  | { readonly page: "run"; readonly runId: string }
  | { readonly page: "usage" }
  | { readonly page: "webhooks" }
  | { readonly page: "keys" };

export interface Location {
  readonly route: Route;
  readonly query: URLSearchParams;
}

export const parseHash = (hash: string): Location => {
  const [path = "", search = ""] = hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean);
  const query = new URLSearchParams(search);
  const [first, id, second, third] = parts;
  if (first === "usage") return { route: { page: "usage" }, query };
  if (first === "webhooks") return { route: { page: "webhooks" }, query };
  if (first === "keys") return { route: { page: "keys" }, query };
  if (first === "runs" && id) return { route: { page: "run", runId: id }, query };
  if (first === "datasets" && id === "new") return { route: { page: "new-dataset" }, query };
  if (first === "datasets" && id) {
    if (second === "rows" && third) return { route: { page: "row", datasetId: id, rowId: third }, query };
    const tab = second === "runs" || second === "changes" ? second : "rows";
    return { route: { page: "dataset", datasetId: id, tab }, query };
  }
  return { route: { page: "datasets" }, query };
};

export const useLocation = (): Location => {
  const [location, setLocation] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const changed = () => setLocation(parseHash(window.location.hash));
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return location;
};

export const navigate = (hash: string): void => {
  window.location.hash = hash;
};
