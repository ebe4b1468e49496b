import { AgendaRunQueueLive, webhookJob } from "@gleaner/agenda";
import { anOwner, aQueuedRun, bend, validDataset } from "@gleaner/conformance";
import {
  AllowedTargets,
  type Credits,
  CreateDatasetRequest,
  createDataset,
  type DatasetId,
  decodeBody,
  newId,
  parseAllowList,
  RunQueue,
  type RunQueueService,
  RunWorkerLive,
  Storage,
  type StorageService,
  type WebhookDeliveryJob,
} from "@gleaner/core";
import { HttpFetcherLive } from "@gleaner/http";
import { JsdomParserLive } from "@gleaner/jsdom";
import { MemoryRunQueueLive, MemoryStoreLive } from "@gleaner/memory";
import { PostgresStoreLive } from "@gleaner/postgres";
import { expect } from "chai";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import * as Scope from "effect/Scope";
import { describe, it } from "mocha";
import pg from "pg";

// A run job wakes the webhook deliveries of its dataset only when the run left messages in the
// outbox: a run of an owner without webhooks queues no webhook job (docs/decisions/0018-data-out.md).
// The runs are real: their source is a loopback address the worker's fetcher refuses, so each
// ends failed or blocked, a finished run whose run.finished a subscribed owner hears about.

const adminUrl = process.env.GLEANER_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/** A worker of one run at a time (so the two runs' announcements come in order) over the given adapters. */
const startWorker = async (store: Layer.Layer<Storage | Credits, unknown>, queue: Layer.Layer<RunQueue, unknown>) => {
  const adapters = Layer.mergeAll(store, queue, HttpFetcherLive(), JsdomParserLive);
  const scope = await Effect.runPromise(Scope.make());
  const context = await Effect.runPromise(Layer.buildWithScope(Layer.provideMerge(RunWorkerLive(1), adapters), scope));
  const storage: StorageService = Context.get(context, Storage);
  const runQueue: RunQueueService = Context.get(context, RunQueue);
  return {
    storage,
    queue: runQueue,
    /** Runs a scoped effect (a consumer) for as long as the worker lives. */
    scoped: (effect: Effect.Effect<void, never, Scope.Scope>) => Effect.runPromise(Scope.extend(effect, scope)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  };
};

type Worker = Awaited<ReturnType<typeof startWorker>>;

/**
 * Owner `quiet` has no webhook, owner `subscribed` has one; each runs a dataset once, quiet first.
 * Resolves once both runs are finished.
 */
const runBoth = async ({ storage, queue }: Worker) => {
  const setUp = async (subscribed: boolean) => {
    const owner = anOwner();
    await Effect.runPromise(storage.createOwner(owner));
    const body = bend(validDataset(), (b) => {
      b.source.url = "http://127.0.0.1:9/catalogue.html";
    });
    // Creation lets the loopback address through; the worker's fetcher (no allow list) does not.
    const created = await Effect.runPromise(
      Effect.flatMap(decodeBody(CreateDatasetRequest, body), (request) => createDataset(owner.id, request)).pipe(
        Effect.provideService(Storage, storage),
        Effect.provideService(AllowedTargets, parseAllowList("127.0.0.1")),
      ),
    );
    const dataset = Option.getOrThrow(await Effect.runPromise(storage.getDataset(owner.id, created.id))).record;
    const run = aQueuedRun(dataset);
    if (subscribed)
      await Effect.runPromise(
        storage.insertWebhook({
          id: newId(),
          ownerId: owner.id,
          url: "https://hooks.example/wake-ups",
          events: ["run.finished"],
          datasetId: null,
          secret: "whsec_wakeups",
          createdAt: new Date().toISOString(),
        }),
      );
    return { dataset, run };
  };
  const quiet = await setUp(false);
  const subscribed = await setUp(true);
  for (const { run } of [quiet, subscribed]) {
    await Effect.runPromise(storage.insertRun(run));
    await Effect.runPromise(queue.enqueue({ runId: run.id, datasetId: run.datasetId, ownerId: run.ownerId }));
  }
  const finished = async ({ run }: typeof quiet) =>
    Option.match(await Effect.runPromise(storage.getRun(run.ownerId, run.id)), {
      onNone: () => false,
      onSome: (r) => r.status === "failed" || r.status === "blocked",
    });
  await until(
    "both runs to end failed or blocked",
    async () => (await finished(quiet)) && (await finished(subscribed)),
  );
  return { quiet: quiet.dataset.id, subscribed: subscribed.dataset.id };
};

describe("webhook wake-ups after run jobs", function () {
  this.timeout(60_000);

  it("memory queue: a run of an owner without webhooks queues no wake-up; a subscribed owner's run does", async () => {
    const worker = await startWorker(MemoryStoreLive, MemoryRunQueueLive());
    try {
      const woken: DatasetId[] = [];
      await worker.scoped(
        worker.queue.consumeWebhookDeliveries(1, (job: WebhookDeliveryJob) =>
          Effect.sync(() => void woken.push(job.datasetId)),
        ),
      );
      const { quiet, subscribed } = await runBoth(worker);
      // One worker runs the jobs in order and the queue hands wake-ups out in order: once the
      // subscribed dataset's wake-up is here, a wake-up for the quiet one would have come first.
      await until("the subscribed dataset's wake-up", () => woken.includes(subscribed));
      expect(woken).to.deep.equal([subscribed]);
      expect(woken).not.to.include(quiet);
    } finally {
      await worker.close();
    }
  });

  it("Agenda: a run of an owner without webhooks leaves no gleaner-webhooks job; a subscribed owner's run does", async () => {
    const schema = `gl_wakeups_${newId().replaceAll("-", "").slice(0, 12)}`;
    const sql = new pg.Pool({ connectionString: adminUrl, max: 1 });
    const worker = await startWorker(
      PostgresStoreLive({ url: adminUrl, schema }),
      AgendaRunQueueLive({ backend: "postgres", url: adminUrl, schema, processEvery: "1 second" }),
    );
    try {
      const { quiet, subscribed } = await runBoth(worker);
      // Nobody consumes wake-ups here: every one the worker queued stays in Agenda's table.
      const wakeUps = async () =>
        (
          await sql.query<{ dataset_id: string }>(
            `select data->>'datasetId' as dataset_id from "${schema}".agenda_jobs where name = $1`,
            [webhookJob],
          )
        ).rows.map((r) => r.dataset_id);
      await until("the subscribed dataset's wake-up job", async () => (await wakeUps()).includes(subscribed));
      expect(await wakeUps()).to.deep.equal([subscribed]);
      expect(await wakeUps()).not.to.include(quiet);
    } finally {
      await worker.close();
      await sql.query(`drop schema if exists "${schema}" cascade`);
      await sql.end();
    }
  });
});
