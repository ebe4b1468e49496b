import { expect } from "chai";
import { after, before, describe, it } from "../runner.js";
import { type Body, bend } from "../bodies.js";
import { booksDataset, runToEnd } from "../books.js";
import type { Capability, Owner, SuiteContext } from "../context.js";
import { type BooksSite, startBooksSite, startTableSite, type TableSite } from "../sites/index.js";

/** What a preview request sends for a dataset body: its source and columns, nothing else. */
const previewOf = (dataset: Body, pages?: number): Body => ({
  source: dataset.source,
  columns: dataset.columns.filter((c: Body) => c.ownership !== "user"),
  ...(pages === undefined ? {} : { pages }),
});

/** The owner's whole footprint: datasets, balance and ledger. A preview or a suggestion changes none. */
const footprint = async (owner: Owner) => ({
  datasets: (await owner.get("/v1/datasets")).body.data,
  usage: (await owner.get("/v1/usage")).body,
});

const paths = (answer: Body): string[] => answer.body.error.details.map((d: { path: string }) => d.path);

export const sourceCases = (ctx: SuiteContext): void => {
  describe("preview a source (POST /v1/sources/preview)", () => {
    let site: BooksSite;
    before(async () => {
      site = await startBooksSite();
    });
    after(() => site.close());

    it("reads the first pages as a run would and answers records, fields, checks and warnings; writes and charges nothing", async () => {
      site.reset();
      const owner = await ctx.owner(10);
      const before = await footprint(owner);
      const answer = await owner.post("/v1/sources/preview", previewOf(booksDataset(site)));
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const { preview } = answer.body;
      expect(preview.pages.map((p: Body) => [p.status, p.records])).to.deep.equal([
        ["read", 20],
        ["read", 20],
      ]);
      expect(preview.pages[0].nextUrl).to.equal(site.pageUrl(2));
      expect(preview.records).to.have.length(40);
      const first = site.books[0]!;
      expect(preview.records[0]).to.deep.include({ index: 0 });
      expect(preview.records[0].values).to.include({ title: first.title, price: first.price_gbp });
      const title = preview.fields.find((f: Body) => f.name === "title");
      expect(title).to.deep.include({ filled: 40, missing: 0 });
      expect(title.examples).to.have.length(3);
      expect(preview.checks.map((c: Body) => [c.checkId, c.passed])).to.deep.equal([
        ["coverage", true],
        ["identity", true],
        ["extraction", true],
        ["minimum-items", true],
        ["present:title", true],
        ["present:price", true],
      ]);
      // Pagination goes on past the preview: the cost of a run is not known yet.
      expect(preview.estimate).to.deep.equal({ complete: false, pages: null, credits: null });
      expect(preview.warnings.map((w: Body) => w.code)).to.deep.equal(["more_pages"]);
      expect(await footprint(owner)).to.deep.equal(before);
    });

    it("estimates the credits of a run when pagination ends within the preview", async () => {
      const small = await startBooksSite({ books: site.books.slice(0, 45) });
      try {
        const owner = await ctx.owner(1);
        const answer = await owner.post("/v1/sources/preview", previewOf(booksDataset(small), 5));
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        expect(answer.body.preview.pages).to.have.length(3);
        expect(answer.body.preview.estimate).to.deep.equal({ complete: true, pages: 3, credits: 3 });
        expect(answer.body.preview.records).to.have.length(45);
      } finally {
        await small.close();
      }
    });

    it("names what to fix: a selector that matches nothing, a field found in no record, types that do not convert", async () => {
      site.reset();
      const owner = await ctx.owner(1);
      const body = bend(booksDataset(site), (b) => {
        b.source.fields[3].read.selector = "p.rating-nowhere";
        b.columns[3].type = "number"; // rating: the class names are words
        b.source.fields[3].read = { selector: "p.star-rating", kind: "attribute", attribute: "class" };
        b.source.fields[4].read.selector = "p.not-on-this-site";
      });
      const answer = await owner.post("/v1/sources/preview", previewOf(body, 1));
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      const { preview } = answer.body;
      expect(preview.warnings).to.deep.include({
        code: "field_not_found",
        message: 'availability: "p.not-on-this-site" found nothing in 0 of 20 records.',
        path: "/source/fields/4/read/selector",
      });
      expect(preview.warnings.map((w: Body) => [w.code, w.path])).to.deep.include([
        "field_not_converted",
        "/source/fields/3/read/selector",
      ]);
      expect(preview.checks.find((c: Body) => c.checkId === "extraction").passed).to.equal(false);
      expect(preview.fields.find((f: Body) => f.name === "rating")).to.deep.include({
        filled: 0,
        missing: 20,
        reasons: { extraction_failed: 20 },
      });
      expect(preview.records[0].missingReasons).to.deep.equal({
        rating: "extraction_failed",
        availability: "not_found",
      });

      const nothing = await owner.post(
        "/v1/sources/preview",
        previewOf(
          bend(booksDataset(site), (b) => (b.source.itemSelector = "article.no-such-item")),
          1,
        ),
      );
      expect(nothing.status).to.equal(200);
      expect(nothing.body.preview.warnings[0]).to.deep.include({ code: "no_items", path: "/source/itemSelector" });
      expect(nothing.body.preview.checks.find((c: Body) => c.checkId === "minimum-items").passed).to.equal(false);
    });

    it("validates the source and columns as POST /v1/datasets does: 422 naming each field", async () => {
      const owner = await ctx.owner(1);
      const bent = (edit: (b: Body) => void, pages?: number) => previewOf(bend(booksDataset(site), edit), pages);
      const cases: Array<[string, Body, string[]]> = [
        [
          "a position selector",
          bent((b) => (b.source.itemSelector = "li:nth-child(2) article")),
          ["/source/itemSelector"],
        ],
        [
          "a field without a column",
          bent((b) => (b.source.fields[1].name = "headline")),
          ["/source/fields/1/name", "/columns/1/name"],
        ],
        ["a column id", bent((b) => (b.columns[0].id = "x")), ["/columns/0/id"]],
        ["six pages", bent(() => {}, 6), ["/pages"]],
        ["a private address", bent((b) => (b.source.url = "http://10.1.2.3/books.html")), ["/source/url"]],
      ];
      for (const [what, body, expected] of cases) {
        const answer = await owner.post("/v1/sources/preview", body);
        expect(answer.status, what).to.equal(422);
        expect(answer.body.error.code, what).to.equal("validation_error");
        expect(paths(answer), what).to.include.members(expected);
      }
      const dataset = await owner.post(
        "/v1/datasets",
        bend(booksDataset(site), (b) => (b.source.itemSelector = "li:nth-child(2) article")),
      );
      expect(dataset.status).to.equal(422);
      const preview = await owner.post("/v1/sources/preview", cases[0]![1]);
      expect(preview.body.error.details).to.deep.equal(dataset.body.error.details);
    });

    it("answers refused reads as a run records them: robots.txt, a blocked page", async () => {
      site.reset();
      const owner = await ctx.owner(1);
      // A site of its own: robots.txt is remembered per origin, as for runs.
      const closed = await startBooksSite({ robots: "User-agent: *\nDisallow: /\n" });
      const robots = await owner.post("/v1/sources/preview", previewOf(booksDataset(closed)));
      await closed.close();
      expect(robots.status).to.equal(200);
      expect(robots.body.preview.pages).to.have.length(1);
      expect(robots.body.preview.pages[0]).to.deep.include({ status: "failed", records: 0, nextUrl: null });
      expect(robots.body.preview.pages[0].readFailure.reason).to.equal("robots_disallowed");
      expect(robots.body.preview.checks[0]).to.deep.include({ checkId: "coverage", passed: false });
      site.reset();
      site.blockPage(2, "challenge");
      const blocked = await owner.post("/v1/sources/preview", previewOf(booksDataset(site)));
      expect(blocked.body.preview.pages.map((p: Body) => [p.status, p.readFailure?.reason ?? null])).to.deep.equal([
        ["read", null],
        ["failed", "challenge"],
      ]);
      expect(blocked.body.preview.warnings.map((w: Body) => w.code)).to.include("read_failed");
      site.reset();
    });

    it("refuses a redirect to a private address (unsafe_target), as a run's read does", async () => {
      const table = await startTableSite();
      try {
        const owner = await ctx.owner(1);
        const body = bend(booksDataset(site), (b) => (b.source.url = table.redirectsToPrivateUrl));
        const answer = await owner.post("/v1/sources/preview", previewOf(body, 1));
        expect(answer.status).to.equal(200);
        expect(answer.body.preview.pages[0].readFailure.reason).to.equal("unsafe_target");
      } finally {
        await table.close();
      }
    });

    it("limits each owner's previews a minute: 429 rate_limited with Retry-After, other owners unaffected", async () => {
      site.reset();
      const owner = await ctx.owner(1);
      const body = previewOf(booksDataset(site), 1);
      let limited: Body | null = null;
      for (let i = 0; i < 200 && limited === null; i++) {
        const answer = await owner.post("/v1/sources/preview", body);
        if (answer.status === 429) limited = answer;
        else expect(answer.status).to.equal(200);
      }
      expect(limited, "no 429 within 200 previews").to.not.equal(null);
      expect(limited!.body.error.code).to.equal("rate_limited");
      expect(Number(limited!.headers.get("retry-after"))).to.be.within(1, 60);
      // A suggestion counts too; another owner still previews.
      expect((await owner.post("/v1/sources/suggest", { url: site.pageUrl(1) })).status).to.equal(429);
      expect((await (await ctx.owner(1)).post("/v1/sources/preview", body)).status).to.equal(200);
    });
  });

  describe("suggest sources from a page (POST /v1/sources/suggest)", () => {
    let site: BooksSite;
    let table: TableSite;
    before(async () => {
      site = await startBooksSite();
      table = await startTableSite();
    });
    after(async () => {
      await site.close();
      await table.close();
    });

    const suggest = async (owner: Owner, body: Body) => {
      const answer = await owner.post("/v1/sources/suggest", body);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      return answer.body;
    };

    /** The best suggestion's body creates a dataset whose first run reads every record, and its preview is the preview's. */
    const acceptsWhole = async (owner: Owner, suggestion: Body, records: number) => {
      const { name, question, columns, source } = suggestion;
      const preview = await owner.post("/v1/sources/preview", { source, columns });
      expect(preview.body.preview).to.deep.equal(suggestion.preview);
      const created = await owner.post("/v1/datasets", { name, ...(question ? { question } : {}), columns, source });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const run = await runToEnd(owner, created.body.dataset.id);
      expect(run.status, JSON.stringify(run)).to.equal("succeeded");
      expect(run.rowDeltas).to.deep.equal({ new: records, changed: 0, gone: 0 });
      return created.body.dataset;
    };

    it("on the books site: the books, keyed by their link, with pagination; the first run accepts all 1000", async () => {
      site.reset();
      const owner = await ctx.owner(60);
      const before = await footprint(owner);
      const answer = await suggest(owner, { url: site.pageUrl(1) });
      expect(answer.page).to.deep.equal({ url: site.pageUrl(1), status: "read", readFailure: null });
      expect(answer.suggestions.length).to.be.within(1, 5);
      const [best] = answer.suggestions;
      expect(best.source.itemSelector).to.equal("article.product_pod");
      expect(best.source.pagination).to.deep.equal({ kind: "next-link", selector: "li.next > a" });
      expect(best.preview.records[0].values).to.deep.include({ price: site.books[0]!.price_gbp });
      expect(Object.values(best.preview.records[0].values)).to.include(site.books[0]!.title);
      expect(best.why).to.be.a("string").and.not.equal("");
      // Suggesting wrote and charged nothing.
      expect(await footprint(owner)).to.deep.equal(before);
      await acceptsWhole(owner, best, 1000);
      expect((await owner.get("/v1/usage")).body.balance).to.equal(10);
    });

    it("on a table page: its rows (not the sidebar's links), named by the table's headers; the first run accepts all", async () => {
      const owner = await ctx.owner(30);
      const answer = await suggest(owner, { url: table.pageUrl(1), question: "Which books are listed?" });
      const [best, ...rest] = answer.suggestions;
      expect(best.source.itemSelector).to.match(/tr$/);
      expect(best.question).to.equal("Which books are listed?");
      expect(best.columns.map((c: Body) => c.name)).to.include.members(["title", "price"]);
      expect(best.preview.records[0].values).to.deep.include({
        title: table.books[0]!.title,
        price: table.books[0]!.price_gbp,
      });
      expect(rest.map((s: Body) => s.why).join(" ")).to.include("#sidebar");
      const dataset = await acceptsWhole(owner, best, table.books.length);
      expect(dataset.question).to.equal("Which books are listed?");
    });

    it("maps the columns asked for onto what the page holds", async () => {
      site.reset();
      const owner = await ctx.owner(1);
      const answer = await suggest(owner, {
        url: site.pageUrl(1),
        columns: [
          { name: "book_price", type: "number", description: "Price in pounds" },
          { name: "cover", type: "url" },
          { name: "isbn", type: "string" },
        ],
      });
      const [best] = answer.suggestions;
      const names = best.columns.map((c: Body) => c.name);
      expect(names).to.include.members(["book_price", "cover"]);
      expect(names).to.not.include("isbn");
      expect(best.why).to.include("isbn");
      expect(best.columns.find((c: Body) => c.name === "book_price")).to.deep.include({
        type: "number",
        description: "Price in pounds",
      });
      expect(best.preview.records[0].values.book_price).to.equal(site.books[0]!.price_gbp);
      expect(String(best.preview.records[0].values.cover)).to.match(/\.jpg$/);
    });

    it("answers no suggestions when the page cannot be read (robots.txt, a private redirect) or repeats nothing", async () => {
      const owner = await ctx.owner(1);
      const robots = await suggest(owner, { url: table.disallowedUrl });
      expect(robots.page).to.deep.include({ status: "failed" });
      expect(robots.page.readFailure.reason).to.equal("robots_disallowed");
      expect(robots.suggestions).to.deep.equal([]);
      const unsafe = await suggest(owner, { url: table.redirectsToPrivateUrl });
      expect(unsafe.page.readFailure.reason).to.equal("unsafe_target");
      expect(unsafe.suggestions).to.deep.equal([]);
      const missing = await suggest(owner, { url: `${table.url}/nothing-here.html` });
      expect(missing.page.status).to.equal("failed");
      expect(missing.suggestions).to.deep.equal([]);
    });

    it("validates its body: 422 naming the field, a private address refused", async () => {
      const owner = await ctx.owner(1);
      for (const [body, path] of [
        [{ url: "ftp://example.com/" }, "/url"],
        [{ url: "http://10.1.2.3/list.html" }, "/url"],
        [{ url: site.pageUrl(1), render: "headless" }, "/render"],
        [{ url: site.pageUrl(1), columns: [{ name: "9lives", type: "string" }] }, "/columns/0/name"],
        [{ url: site.pageUrl(1), extra: true }, "/extra"],
      ] as const) {
        const answer = await owner.post("/v1/sources/suggest", body);
        expect(answer.status, JSON.stringify(body)).to.equal(422);
        expect(paths(answer), JSON.stringify(body)).to.include(path);
      }
    });
  });
};

export const sourcesCapability: Capability = { name: "sources", register: sourceCases };
