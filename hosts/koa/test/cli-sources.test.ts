import { execFile } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { booksDataset, type BooksSite, makeClient, startBooksSite } from "@gleaner/conformance";
import { MemoryStoreLive } from "@gleaner/memory";
import { expect } from "chai";
import { pino } from "pino";
import { type RunningHost, startHost } from "@gleaner/koa";

const bin = fileURLToPath(new URL("../bin/gleaner.js", import.meta.url));
const run = promisify(execFile);

/** `gleaner suggest` and `gleaner preview`, as a user types them against a running server. */
describe("gleaner suggest / gleaner preview", function () {
  this.timeout(60_000);
  let host: RunningHost;
  let site: BooksSite;
  let env: NodeJS.ProcessEnv;
  let folder: string;
  before(async () => {
    site = await startBooksSite();
    host = await startHost({
      overrides: { store: MemoryStoreLive },
      config: { port: 0, host: "127.0.0.1", allowPrivateTargets: ["127.0.0.1"] },
      logger: pino({ level: "silent" }),
    });
    env = { ...process.env, GLEANER_URL: host.url, GLEANER_API_KEY: await host.createKey("cli-sources", 60) };
    folder = mkdtempSync(join(tmpdir(), "gleaner-cli-"));
  });
  after(async () => {
    await host?.close();
    await site?.close();
  });
  const gleaner = (...args: string[]) => run(process.execPath, [bin, ...args], { env });

  it("suggest prints each suggestion with its first rows as a table, the checks and why", async () => {
    const { stdout } = await gleaner("suggest", site.pageUrl(1));
    expect(stdout).to.match(/^\n?1\. .*article\.product_pod/m);
    expect(stdout).to.contain(site.books[0]!.title);
    expect(stdout).to.contain("51.77");
    expect(stdout).to.match(/Checks: ✓ coverage {2}✓ identity/);
    expect(stdout).to.contain("pages follow the link li.next > a");
  });

  it("suggest --json prints bodies POST /v1/datasets creates as they are", async () => {
    const { stdout } = await gleaner("suggest", site.pageUrl(1), "--json", "--question", "Which books are sold?");
    const bodies = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(bodies.length).to.be.within(1, 5);
    expect(bodies[0]!.question).to.equal("Which books are sold?");
    const client = makeClient(host.url, env.GLEANER_API_KEY!);
    const created = await client.post("/v1/datasets", bodies[0]);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
  });

  it("preview FILE prints the records and exits 0 when every check passes, 2 with what to fix otherwise", async () => {
    const good = join(folder, "books.json");
    writeFileSync(good, JSON.stringify(booksDataset(site)));
    const ok = await gleaner("preview", good);
    expect(ok.stdout).to.contain(site.books[0]!.title.slice(0, 20));
    expect(ok.stdout).to.contain("2 page(s) read, 40 records.");
    const broken = join(folder, "broken.json");
    const body = booksDataset(site, "next-link", (b) => (b.source.fields[2].read.selector = "p.gone"));
    writeFileSync(
      broken,
      JSON.stringify({
        source: body.source,
        columns: body.columns.filter((c: { ownership?: string }) => c.ownership !== "user"),
        pages: 1,
      }),
    );
    const failed = await gleaner("preview", broken).then(
      () => null,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed?.code).to.equal(2);
    expect(failed?.stdout).to.contain("✗ present:price");
    expect(failed?.stdout).to.contain(
      'Warning: price: "p.gone" found nothing in 0 of 20 records. [/source/fields/2/read/selector]',
    );
  });

  it("preview names each invalid field and exits 1", async () => {
    const invalid = join(folder, "invalid.json");
    const body = booksDataset(site, "next-link", (b) => (b.source.itemSelector = "li:nth-child(2)"));
    writeFileSync(invalid, JSON.stringify(body));
    const error = await gleaner("preview", invalid).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(error?.code).to.equal(1);
    expect(error?.stderr).to.contain("/source/itemSelector");
    expect(error?.stderr).to.contain('"li:nth-child(2)" uses the pseudo-class ":nth-child"');
  });
});
