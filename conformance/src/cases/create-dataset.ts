import { expect } from "chai";
import { describe, it } from "../runner.js";
import { type Body, bend, validDataset } from "../bodies.js";
import type { Capability, SuiteContext } from "../context.js";

type Edit = (b: Body) => void;
const s = (b: Body) => b.source;
const long = (n: number, c = "a") => c.repeat(n);

/** One accepted edit per constraint: the boundary value or the documented default. */
const accepted: Array<[string, Edit]> = [
  ["a 120-character name", (b) => void (b.name = long(120))],
  ["no question", (b) => void delete b.question],
  ["a 1000-character question", (b) => void (b.question = long(1000))],
  [
    "a single column",
    (b) => {
      b.columns = [{ name: "upc", type: "string", key: true }];
      s(b).fields = [s(b).fields[0]];
    },
  ],
  [
    "an 80-character column name",
    (b) => {
      const name = `u${long(79, "x")}`;
      b.columns[0].name = name;
      s(b).fields[0].name = name;
      s(b).identity.field = name;
    },
  ],
  ["a 120-character label", (b) => void (b.columns[1].label = long(120))],
  ["a 500-character description", (b) => void (b.columns[1].description = long(500))],
  [
    "user columns of every type",
    (b) => {
      for (const type of ["string", "number", "date", "url", "boolean"])
        b.columns.push({ name: `u_${type}`, type, ownership: "user" });
    },
  ],
  ["an http:// URL", (b) => void (s(b).url = "http://books.example/")],
  ["a 2048-character URL", (b) => void (s(b).url = `https://books.example/${long(2048 - 22)}`)],
  ["render: browser", (b) => void (s(b).render = "browser")],
  [
    "a 500-character item selector",
    (b) => void (s(b).itemSelector = `article${" div".repeat(123)}`.slice(0, 500).trim()),
  ],
  ["a read without selector (the container itself)", (b) => void delete s(b).fields[1].read.selector],
  ["an attribute with hyphens", (b) => void (s(b).fields[0].read.attribute = "data-book-id")],
  ["a 100-character attribute", (b) => void (s(b).fields[0].read.attribute = `_${long(99)}`)],
  [
    "attribute selectors of every operator",
    (b) => void (s(b).itemSelector = 'article[data-x][a="1"][b~="2"][c|="3"][d^="4"][e$="5"][f*="6"]'),
  ],
  ["id and child combinators", (b) => void (s(b).itemSelector = "#default ol.row > li > article")],
  [
    "composite identity in key order",
    (b) => {
      b.columns[1].key = true;
      s(b).identity = { kind: "composite", fields: ["upc", "title"] };
    },
  ],
  ["pagination none", (b) => void (s(b).pagination = { kind: "none" })],
  [
    "url-pattern starting at the default page 1",
    (b) => {
      s(b).pagination = {
        kind: "url-pattern",
        pattern: "https://books.example/catalogue/page-{page}.html",
        endSelector: "li.last-page",
      };
    },
  ],
  [
    "url-pattern starting at page 0",
    (b) => {
      s(b).url = "https://books.example/catalogue/page-0.html";
      s(b).pagination = {
        kind: "url-pattern",
        pattern: "https://books.example/catalogue/page-{page}.html",
        startPage: 0,
        endSelector: "li.last-page",
      };
    },
  ],
  [
    "url-pattern starting at page 1000000",
    (b) => {
      s(b).url = "https://books.example/catalogue/page-1000000.html";
      s(b).pagination = {
        kind: "url-pattern",
        pattern: "https://books.example/catalogue/page-{page}.html",
        startPage: 1000000,
        endSelector: "li.last-page",
      };
    },
  ],
  ["maxPages 1 and 50", (b) => void (s(b).maxPages = 50)],
  ["maxItems 1", (b) => void (s(b).maxItems = 1)],
  ["maxItems 1000", (b) => void (s(b).maxItems = 1000)],
  ["minimumItems 0", (b) => void (s(b).minimumItems = 0)],
  ["proxy never", (b) => void (s(b).proxy = "never")],
  ["proxy always", (b) => void (s(b).proxy = "always")],
  ["ignoreRobots true", (b) => void (s(b).ignoreRobots = true)],
  ["required false", (b) => void (s(b).fields[1].required = false)],
];

/** One refused edit per constraint, with the JSON pointer the error must name. */
const refused: Array<[string, Edit, string]> = [
  ["an empty name", (b) => void (b.name = ""), "/name"],
  ["a 121-character name", (b) => void (b.name = long(121)), "/name"],
  ["a missing name", (b) => void delete b.name, "/name"],
  ["an empty question", (b) => void (b.question = ""), "/question"],
  ["a 1001-character question", (b) => void (b.question = long(1001)), "/question"],
  ["a null question", (b) => void (b.question = null), "/question"],
  ["an unknown top-level field", (b) => void (b.owner = "me"), "/owner"],
  ["no columns", (b) => void (b.columns = []), "/columns"],
  [
    "51 columns",
    (b) => {
      for (let i = 0; i < 46; i++) b.columns.push({ name: `extra_${i}`, type: "string", ownership: "user" });
    },
    "/columns",
  ],
  ["a column id", (b) => void (b.columns[1].id = globalThis.crypto.randomUUID()), "/columns/1/id"],
  ["a column name starting with a digit", (b) => void (b.columns[4].name = "1notes"), "/columns/4/name"],
  ["a column name with a hyphen", (b) => void (b.columns[4].name = "my-notes"), "/columns/4/name"],
  ["an 81-character column name", (b) => void (b.columns[4].name = `n${long(80)}`), "/columns/4/name"],
  ["an unknown column type", (b) => void (b.columns[4].type = "integer"), "/columns/4/type"],
  ["an empty label", (b) => void (b.columns[1].label = ""), "/columns/1/label"],
  ["a 121-character label", (b) => void (b.columns[1].label = long(121)), "/columns/1/label"],
  ["an empty description", (b) => void (b.columns[1].description = ""), "/columns/1/description"],
  ["a 501-character description", (b) => void (b.columns[1].description = long(501)), "/columns/1/description"],
  ["an unknown ownership", (b) => void (b.columns[4].ownership = "shared"), "/columns/4/ownership"],
  ["an unknown column field", (b) => void (b.columns[1].width = 3), "/columns/1/width"],
  [
    "duplicate column names",
    (b) => void b.columns.push({ name: "notes", type: "string", ownership: "user" }),
    "/columns/5/name",
  ],
  [
    "a collected date column",
    (b) => {
      b.columns.push({ name: "published", type: "date" });
      s(b).fields.push({ name: "published", read: { selector: "p.date" } });
    },
    "/columns/5/type",
  ],
  [
    "a collected url column",
    (b) => {
      b.columns.push({ name: "link", type: "url" });
      s(b).fields.push({ name: "link", read: { selector: "a", kind: "attribute", attribute: "href" } });
    },
    "/columns/5/type",
  ],
  ["a user-owned key column", (b) => void (b.columns[4].key = true), "/columns/4/key"],
  ["a collected column without a read", (b) => void s(b).fields.splice(3, 1), "/columns/3/name"],
  [
    "a source field without a column",
    (b) => void s(b).fields.push({ name: "rating", read: { selector: "p.star-rating" } }),
    "/source/fields/4/name",
  ],
  [
    "a source field for a user column",
    (b) => void s(b).fields.push({ name: "notes", read: { selector: "p" } }),
    "/source/fields/4/name",
  ],
  [
    "two reads for one column",
    (b) => void s(b).fields.push({ name: "price", read: { selector: "p.price" } }),
    "/source/fields/4/name",
  ],
  ["a missing source", (b) => void delete b.source, "/source"],
  ["source version 2", (b) => void (s(b).version = 2), "/source/version"],
  ["a missing source version", (b) => void delete s(b).version, "/source/version"],
  ["an ftp URL", (b) => void (s(b).url = "ftp://books.example/"), "/source/url"],
  ["a relative URL", (b) => void (s(b).url = "/catalogue/page-1.html"), "/source/url"],
  ["a 2049-character URL", (b) => void (s(b).url = `https://books.example/${long(2049 - 22)}`), "/source/url"],
  ["an unknown render mode", (b) => void (s(b).render = "headless"), "/source/render"],
  ["an empty item selector", (b) => void (s(b).itemSelector = ""), "/source/itemSelector"],
  ["a 501-character item selector", (b) => void (s(b).itemSelector = `a${".b".repeat(250)}`), "/source/itemSelector"],
  ["a pseudo-class", (b) => void (s(b).itemSelector = "article:first-child"), "/source/itemSelector"],
  ["a sibling combinator", (b) => void (s(b).itemSelector = "h1 ~ article"), "/source/itemSelector"],
  ["an adjacent combinator", (b) => void (s(b).itemSelector = "h1 + article"), "/source/itemSelector"],
  ["the universal selector", (b) => void (s(b).itemSelector = "ol > *"), "/source/itemSelector"],
  ["a selector list", (b) => void (s(b).itemSelector = "article, li"), "/source/itemSelector"],
  ["an unparseable selector", (b) => void (s(b).itemSelector = "article[data-x"), "/source/itemSelector"],
  [
    "a pseudo-element in a read",
    (b) => void (s(b).fields[2].read.selector = "p::before"),
    "/source/fields/2/read/selector",
  ],
  ["an empty read selector", (b) => void (s(b).fields[2].read.selector = ""), "/source/fields/2/read/selector"],
  ["an unknown read kind", (b) => void (s(b).fields[2].read.kind = "html"), "/source/fields/2/read/kind"],
  [
    "kind attribute without an attribute",
    (b) => void delete s(b).fields[0].read.attribute,
    "/source/fields/0/read/attribute",
  ],
  [
    "an attribute starting with a digit",
    (b) => void (s(b).fields[0].read.attribute = "1href"),
    "/source/fields/0/read/attribute",
  ],
  [
    "a 101-character attribute",
    (b) => void (s(b).fields[0].read.attribute = `_${long(100)}`),
    "/source/fields/0/read/attribute",
  ],
  [
    "an attribute with kind text",
    (b) => void (s(b).fields[2].read.attribute = "title"),
    "/source/fields/2/read/attribute",
  ],
  ["no source fields", (b) => void (s(b).fields = []), "/source/fields"],
  ["a source field without read", (b) => void delete s(b).fields[2].read, "/source/fields/2/read"],
  ["a non-boolean required", (b) => void (s(b).fields[2].required = "yes"), "/source/fields/2/required"],
  ["an identity field that is not a key column", (b) => void (s(b).identity.field = "title"), "/source/identity/field"],
  ["an identity on a user column", (b) => void (s(b).identity.field = "notes"), "/source/identity/field"],
  ["an identity on an unknown column", (b) => void (s(b).identity.field = "isbn"), "/source/identity/field"],
  [
    "a composite identity out of key order",
    (b) => {
      b.columns[1].key = true;
      s(b).identity = { kind: "composite", fields: ["title", "upc"] };
    },
    "/source/identity/fields",
  ],
  [
    "a composite identity with a repeated field",
    (b) => void (s(b).identity = { kind: "composite", fields: ["upc", "upc"] }),
    "/source/identity/fields/1",
  ],
  [
    "an empty composite identity",
    (b) => void (s(b).identity = { kind: "composite", fields: [] }),
    "/source/identity/fields",
  ],
  ["an unknown identity kind", (b) => void (s(b).identity = { kind: "hash", field: "upc" }), "/source/identity"],
  ["key columns without an identity match", (b) => void (b.columns[1].key = true), "/source/identity/field"],
  ["an unknown pagination kind", (b) => void (s(b).pagination = { kind: "infinite-scroll" }), "/source/pagination"],
  ["next-link without a selector", (b) => void (s(b).pagination = { kind: "next-link" }), "/source/pagination"],
  [
    "a next-link selector outside the subset",
    (b) => void (s(b).pagination.selector = "a:contains(Next)"),
    "/source/pagination/selector",
  ],
  [
    "a url-pattern without {page}",
    (b) => {
      s(b).pagination = {
        kind: "url-pattern",
        pattern: "https://books.example/catalogue/page-1.html",
        endSelector: "li.last-page",
      };
    },
    "/source/pagination/pattern",
  ],
  [
    "a url-pattern with two {page}",
    (b) => {
      s(b).pagination = {
        kind: "url-pattern",
        pattern: "https://books.example/{page}/page-{page}.html",
        endSelector: "li.last-page",
      };
    },
    "/source/pagination/pattern",
  ],
  [
    "a url-pattern the start URL does not match",
    (b) => {
      s(b).pagination = {
        kind: "url-pattern",
        pattern: "https://books.example/catalogue/page-{page}.html",
        startPage: 2,
        endSelector: "li.last-page",
      };
    },
    "/source/url",
  ],
  [
    "a url-pattern without endSelector",
    (b) => {
      s(b).pagination = { kind: "url-pattern", pattern: "https://books.example/catalogue/page-{page}.html" };
    },
    "/source/pagination",
  ],
  [
    "a url-pattern that is not http(s)",
    (b) => {
      s(b).pagination = { kind: "url-pattern", pattern: "file:///page-{page}.html", endSelector: "li.last-page" };
    },
    "/source/pagination",
  ],
  [
    "startPage above 1000000",
    (b) => {
      s(b).pagination = {
        kind: "url-pattern",
        pattern: "https://books.example/p{page}",
        startPage: 1000001,
        endSelector: "li.x",
      };
    },
    "/source/pagination",
  ],
  ["maxPages 0", (b) => void (s(b).maxPages = 0), "/source/maxPages"],
  ["maxPages 51", (b) => void (s(b).maxPages = 51), "/source/maxPages"],
  ["maxPages 2.5", (b) => void (s(b).maxPages = 2.5), "/source/maxPages"],
  ["maxItems 0", (b) => void (s(b).maxItems = 0), "/source/maxItems"],
  ["maxItems 1001", (b) => void (s(b).maxItems = 1001), "/source/maxItems"],
  ["minimumItems -1", (b) => void (s(b).minimumItems = -1), "/source/minimumItems"],
  ["minimumItems 1001", (b) => void (s(b).minimumItems = 1001), "/source/minimumItems"],
  ["an unknown proxy mode", (b) => void (s(b).proxy = "sometimes"), "/source/proxy"],
  ["a non-boolean ignoreRobots", (b) => void (s(b).ignoreRobots = "true"), "/source/ignoreRobots"],
  ["an unknown source field", (b) => void (s(b).script = "return 1"), "/source/script"],
];

export const createDatasetCases = (ctx: SuiteContext): void => {
  describe("POST /v1/datasets", () => {
    it("creates a draft dataset with allocated column ids, defaults and schema version 1", async () => {
      const owner = await ctx.owner(12);
      const body = validDataset();
      const answer = await owner.post("/v1/datasets", body);
      expect(answer.status).to.equal(201);
      expect(answer.credits).to.equal(12);
      const dataset = answer.body.dataset;
      expect(Object.keys(answer.body)).to.deep.equal(["dataset"]);
      expect(dataset).to.have.all.keys(
        "id",
        "name",
        "question",
        "columns",
        "schemaVersion",
        "status",
        "schedule",
        "scheduleState",
        "rowCount",
        "lastRun",
        "createdAt",
        "updatedAt",
      );
      expect(dataset).to.include({
        name: body.name,
        question: body.question,
        schemaVersion: 1,
        status: "draft",
        schedule: null,
        scheduleState: null,
        rowCount: 0,
        lastRun: null,
      });
      expect(dataset.columns.map((c: Body) => c.name)).to.deep.equal(["upc", "title", "price", "in_stock", "notes"]);
      expect(new Set(dataset.columns.map((c: Body) => c.id)).size).to.equal(5);
      expect(dataset.columns[0]).to.include({ label: "UPC", ownership: "collected", key: true, type: "string" });
      expect(dataset.columns[1]).to.include({ label: "title", ownership: "collected", key: false });
      expect(dataset.columns[2].description).to.equal("Price in GBP");
      expect(dataset.columns[4]).to.include({ ownership: "user", key: false });
      expect(Date.parse(dataset.createdAt)).to.be.closeTo(Date.now(), 60_000);
      const read = await owner.get(`/v1/datasets/${dataset.id}`);
      expect(read.body.dataset).to.deep.equal(dataset);
    });

    it("refuses a second dataset with the same name for one owner (409), allows it for another", async () => {
      const alice = await ctx.owner();
      const bob = await ctx.owner();
      const body = validDataset();
      expect((await alice.post("/v1/datasets", body)).status).to.equal(201);
      const again = await alice.post("/v1/datasets", body);
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.be.oneOf(["conflict", "name_taken"]);
      expect((await bob.post("/v1/datasets", body)).status).to.equal(201);
      expect((await alice.get("/v1/datasets")).body.data).to.have.length(1);
    });

    it("writes nothing when a request is refused", async () => {
      const owner = await ctx.owner();
      const bad = bend(validDataset(), (b) => void (b.source.version = 2));
      expect((await owner.post("/v1/datasets", bad)).status).to.equal(422);
      expect((await owner.get("/v1/datasets")).body.data).to.deep.equal([]);
      // The refused name is still free.
      expect((await owner.post("/v1/datasets", { ...validDataset(), name: bad.name })).status).to.equal(201);
    });

    it("reports every problem at once, each with its path", async () => {
      const owner = await ctx.owner();
      const body = bend(validDataset(), (b) => {
        b.columns[1].id = globalThis.crypto.randomUUID();
        b.source.itemSelector = "article:hover";
        b.source.fields[0].read.selector = "h3 + a";
      });
      const answer = await owner.post("/v1/datasets", body);
      expect(answer.status).to.equal(422);
      const paths = answer.body.error.details.map((d: Body) => d.path);
      expect(paths).to.include.members(["/columns/1/id", "/source/itemSelector", "/source/fields/0/read/selector"]);
      const selectorDetail = answer.body.error.details.find((d: Body) => d.path === "/source/itemSelector");
      expect(selectorDetail.message).to.contain("article:hover").and.contain(":hover");
    });

    describe("accepts each constraint at its boundary", () => {
      for (const [name, edit] of accepted) {
        it(name, async () => {
          const owner = await ctx.owner();
          const answer = await owner.post("/v1/datasets", bend(validDataset(), edit));
          expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
        });
      }
    });

    describe("refuses each violated constraint with 422 naming the field", () => {
      for (const [name, edit, path] of refused) {
        it(`${name} -> ${path}`, async () => {
          const owner = await ctx.owner();
          const answer = await owner.post("/v1/datasets", bend(validDataset(), edit));
          expect(answer.status, JSON.stringify(answer.body)).to.equal(422);
          expect(answer.body.error.code).to.equal("validation_error");
          expect(answer.body.error.message).to.be.a("string").and.not.empty;
          const paths: string[] = answer.body.error.details.map((d: Body) => d.path);
          expect(
            paths.some((p) => p === path || p.startsWith(`${path}/`)),
            `details: ${JSON.stringify(answer.body.error.details)}`,
          ).to.equal(true);
          expect(answer.credits).to.equal(100);
        });
      }
    });
  });
};

export const createDatasetCapability: Capability = {
  name: "createDataset",
  register: createDatasetCases,
};
