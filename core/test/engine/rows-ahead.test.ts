import { expect } from "chai";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { editRow, Fetcher, type OwnerId, Storage } from "../../src/index.js";
import { fetchedPage } from "./fetched-page.js";
import { shopEngine } from "./shop-engine.js";
import { goodPages as pages, site } from "./shop-site.js";

// Decision 0034: a run loads its dataset's rows while it reads the pages. The acceptance checks every
// row head it relies on, so an edit that lands in between is not lost: the run reconciles again.
describe("the dataset's rows, loaded while a run reads", () => {
  const harness = async () => {
    const events: string[] = [];
    let duringRead: (() => Promise<void>) | null = null;
    const fetcher = Layer.succeed(Fetcher, {
      read: (request) =>
        Effect.gen(function* () {
          if (request.url === `${site}/p2` && duringRead) {
            const edit = duringRead;
            duringRead = null;
            yield* Effect.promise(edit);
          }
          // A read waits on the network: other fibers run meanwhile.
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)));
          events.push(`read ${request.url.slice(site.length)}`);
          return fetchedPage(request.url, pages[request.url]!);
        }),
    });
    const wrap = (storage: StorageService): Partial<StorageService> => ({
      loadRows: (datasetId) =>
        Effect.andThen(
          Effect.sync(() => events.push("loadRows")),
          storage.loadRows(datasetId),
        ),
      acceptRun: (acceptance) =>
        Effect.tap(storage.acceptRun(acceptance), (outcome) => Effect.sync(() => events.push(outcome._tag))),
    });
    const { run, owner, dataset, execute, dispose } = await shopEngine(wrap, fetcher);
    const rows = () => run(Effect.flatMap(Storage, (s) => s.loadRows(dataset.id)));
    return {
      events,
      execute,
      rows,
      run,
      dataset,
      owner,
      dispose,
      editWhileReading: (edit: () => Promise<void>) => {
        duringRead = edit;
      },
    };
  };

  it("loads them before the run has read its pages, once when nothing changes meanwhile", async () => {
    const h = await harness();
    await h.execute();
    // Loaded once, before the last page was read.
    expect(h.events.filter((e) => e === "loadRows")).to.have.length(1);
    expect(h.events.indexOf("loadRows")).to.be.below(h.events.indexOf("read /p2"));
    expect(h.events.slice(-1)).to.deep.equal(["Accepted"]);
    await h.dispose();
  });

  it("keeps an edit that lands while the run reads: the acceptance sees the row changed and reconciles again", async () => {
    const h = await harness();
    await h.execute();
    const price = h.dataset.columns.find((c) => c.name === "price")!.id;
    const [book] = (await h.rows()).filter((row) => row.rowKey.endsWith("/b/1"));
    h.events.length = 0;
    h.editWhileReading(async () => {
      await h.run(
        editRow(h.owner.id as OwnerId, h.dataset.id, book!.id, {
          expectedRevisionId: book!.revisionId,
          requestId: "while-reading",
          values: { [price]: 9.99 },
        }),
      );
    });
    const second = await h.execute();
    expect(second.status).to.equal("succeeded");
    // Loaded while reading, before the edit (made as /p2 is read), refused at the acceptance, loaded
    // again, accepted.
    expect(h.events.indexOf("loadRows")).to.be.below(h.events.indexOf("read /p2"));
    expect(h.events.slice(h.events.indexOf("read /p2"))).to.deep.equal([
      "read /p2",
      "RowsChanged",
      "loadRows",
      "Accepted",
    ]);
    const [edited] = (await h.rows()).filter((row) => row.id === book!.id);
    expect(edited!.data[price]).to.equal(9.99);
    expect(edited!.overrides).to.have.property(price);
    await h.dispose();
  });
});
