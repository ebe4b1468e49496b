import { useCallback, useEffect, useState } from "preact/hooks";

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  readonly reload: () => void;
}

/** Runs `load` when `deps` change (and on reload); keeps the last data while a reload is under way. */
export const useLoad = <T>(load: (signal: AbortSignal) => Promise<T>, deps: ReadonlyArray<unknown>): Loaded<T> => {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  // The caller names what `load` depends on in `deps`.
  useEffect(() => {
    // Aborted when the inputs change or the view goes: a load of several requests stops early.
    const superseded = new AbortController();
    setState((previous) => ({ ...previous, loading: true }));
    load(superseded.signal).then(
      (data) => !superseded.signal.aborted && setState({ data, error: undefined, loading: false }),
      (error: unknown) =>
        !superseded.signal.aborted && setState((previous) => ({ ...previous, error, loading: false })),
    );
    return () => superseded.abort();
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { ...state, reload };
};
