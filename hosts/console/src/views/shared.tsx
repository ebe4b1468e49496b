import type { ComponentChildren } from "preact";
import { messageOf } from "../api.js";
import type { Loaded } from "../use-load.js";

export const Problem = ({ error }: { error: unknown }) => (
  <p class="error" role="alert">
    {messageOf(error)}
  </p>
);

/** Shows the loading state or the failure of a load, else its children with the data. */
export const Awaiting = <T,>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) => {
  if (loaded.data !== undefined)
    return (
      <>
        {loaded.error !== undefined && <Problem error={loaded.error} />}
        {children(loaded.data)}
      </>
    );
  if (loaded.error !== undefined) return <Problem error={loaded.error} />;
  return (
    <p class="muted" aria-busy="true">
      Loading…
    </p>
  );
};

export const Status = ({ status }: { status: string }) => <span class={`status status-${status}`}>{status}</span>;
