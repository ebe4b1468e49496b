// The benches' HTTP client of a Gleaner host (imports nothing: bench children load only the host).

export interface Answer {
  readonly status: number;
  readonly body: any;
}

export type Call = (method: string, path: string, body?: unknown) => Promise<Answer>;

export const clientOf =
  (url: string, key: string): Call =>
  async (method, path, body) => {
    const response = await fetch(new URL(path, url), {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };

export const expectStatus = (answer: Answer, status: number, what: string): any => {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

/** Creates a dataset; its id. */
export const createDataset = async (call: Call, body: unknown): Promise<string> =>
  expectStatus(await call("POST", "/v1/datasets", body), 201, "create dataset").dataset.id;

const terminal = new Set(["succeeded", "failed", "blocked", "held"]);

export interface FinishedRun {
  readonly run: any;
  /** POST /runs → the poll that saw `succeeded`, in ms. */
  readonly wallMs: number;
  /**
   * POST /runs → halfway between the last answer that showed the run unfinished and the first that
   * showed it finished, in ms: where the run ended, without the bias of `wallMs` (which counts half
   * a poll interval too many on average), so a bench can poll slowly and still resolve the span.
   */
  readonly settledMs: number;
  /**
   * POST /runs → the run's `completedAt` (stamped by the host after its write), on the machine's
   * wall clock, in ms: the run's own span, which the poll's interval neither blurs nor lengthens.
   */
  readonly acceptedMs: number;
  /** POST /runs → its 202 (the run inserted and its job enqueued), in ms. */
  readonly postMs: number;
  /** queuedAt → startedAt of the run resource (the queue's pickup), in ms. */
  readonly pickupMs: number;
  /** startedAt → completedAt (the engine's span, the acceptance write included), in ms. */
  readonly engineMs: number;
}

/** POST /runs, then poll every `pollMs` until the run is terminal; throws unless it succeeded. */
export const runToSuccess = async (call: Call, datasetId: string, pollMs = 5): Promise<FinishedRun> => {
  const started = performance.now();
  const postedAt = Date.now();
  const { runId } = expectStatus(await call("POST", `/v1/datasets/${datasetId}/runs`), 202, "start run");
  const postMs = performance.now() - started;
  let unfinishedMs = postMs;
  for (;;) {
    const { run } = expectStatus(await call("GET", `/v1/runs/${runId}`), 200, "get run");
    if (terminal.has(run.status)) {
      const wallMs = performance.now() - started;
      if (run.status !== "succeeded") throw new Error(`run ${run.status}: ${JSON.stringify(run)}`);
      const at = (field: string) => Date.parse(run[field]);
      return {
        run,
        wallMs,
        settledMs: (unfinishedMs + wallMs) / 2,
        acceptedMs: at("completedAt") - postedAt,
        postMs,
        pickupMs: at("startedAt") - at("queuedAt"),
        engineMs: at("completedAt") - at("startedAt"),
      };
    }
    unfinishedMs = performance.now() - started;
    if (unfinishedMs > 300_000) throw new Error(`run ${runId} still ${run.status} after 300 s`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
};
