import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { LanguageModel } from "@gleaner/core";
import { OpenAiModelLive } from "@gleaner/openai";
import type { RunningHost } from "@gleaner/koa";
import { SearxngLive } from "@gleaner/searxng";
import { expect } from "chai";
import * as Layer from "effect/Layer";
import * as Redacted from "effect/Redacted";
import { after, before, describe, it } from "../runner.js";
import { pino } from "pino";
import type { Body } from "../bodies.js";
import { columnId } from "../books.js";
import { type AdapterSet, type Capability, type Owner, ownerOn, type SuiteContext } from "../context.js";
import { startResearchHost } from "../research-host.js";
import { companiesDataset, readerModel } from "../research-reader.js";
import { createDataset, ownerResearches, researchToEnd, withoutBasis } from "../research-runs.js";
import { companyWeb, startCompanyWeb } from "../sites/company-web.js";
import { type SearxngStub, startSearxngStub } from "../sites/research-site.js";

/**
 * Search research over a web of company pages (sites/company-web.ts) with a model that answers from
 * the page text it is sent (research-reader.ts): names across legal forms, numbers as pages write
 * them, a quote about another number, pages that disagree, and a profile that answers 403. The host
 * runs on the set's store and a queue of its own name.
 */
export const researchWebCases = (_ctx: SuiteContext, set: AdapterSet): void => {
  describe("research over a web of company pages", () => {
    const spec = companyWeb(8);
    const [nordwerk, bramble, harrow, , ostra, , blocked] = spec.companies;
    let web: Awaited<ReturnType<typeof startCompanyWeb>>;
    let searxng: SearxngStub;
    let host: RunningHost;
    let owner: Owner;
    let dataset: Body;
    let run: Body;
    const credits = 100;

    const rowOf = async (name: string) => {
      const rows = (await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 100 })).body.data as Body[];
      return rows.find((r) => r.identity.aliases.includes(name)) as Body;
    };
    const cell = (row: Body, column: string) => row.data[columnId(dataset, column)];
    const diagnosis = async (entity: string, column: string) =>
      (await owner.get(`/v1/runs/${run.id}/diagnostics`, { entity, field: columnId(dataset, column) })).body.diagnostics
        .entity;

    before(async () => {
      web = await startCompanyWeb(spec);
      searxng = await startSearxngStub(web.search);
      host = await startResearchHost(set, "research_web", {
        model: Layer.succeed(LanguageModel, readerModel()),
        search: SearxngLive({ url: searxng.url }),
      });
      ({ owner, dataset, run } = await ownerResearches(host, companiesDataset(web.urls[0] as string), credits));
    });
    after(async () => {
      await host?.close();
      await searxng?.close();
      await web?.close();
    });

    it("succeeds with one row per company that has a readable page, none for a company no page names", async () => {
      expect(run.status, JSON.stringify(run)).to.equal("succeeded");
      const rows = (await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 100 })).body.data as Body[];
      expect(rows.map((r) => r.identity.anchor).sort()).to.deep.equal(spec.companies.map((c) => c.name).sort());
    });

    it("merges a company's names across legal forms and an acronym its page ties to it, keeping every name", async () => {
      expect((await rowOf("Nordwerk")).identity.aliases).to.have.members([nordwerk!.name, nordwerk!.bare]);
      expect((await rowOf(ostra!.acronym as string)).identity.aliases).to.include.members([
        ostra!.name,
        ostra!.acronym,
      ]);
      // Agreeing pages under two names are one entity, present, not ambiguous.
      expect((await diagnosis(nordwerk!.bare, "city")).outcome).to.equal("present");
    });

    it("reads numbers as pages write them: in words, with scale words, grouped the German way", async () => {
      expect(cell(await rowOf(bramble!.name), "employees")).to.equal(bramble!.facts.employees);
      expect(cell(await rowOf(nordwerk!.name), "revenue")).to.equal(nordwerk!.facts.revenue);
      expect(cell(await rowOf(harrow!.name), "revenue")).to.equal(harrow!.facts.revenue);
      // The headcount from the German page's "8.919 Mitarbeiter".
      expect(cell(await rowOf(nordwerk!.name), "employees")).to.equal(nordwerk!.facts.employees);
    });

    it("refuses a real quote about another number (quote_not_about_value) and says so on the cell", async () => {
      const diagnostics = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics;
      const group = (diagnostics.summary.failureGroups as Body[]).find(
        (g) => g.stage === "validation" && g.code === "quote_not_about_value",
      ) as Body;
      expect(group.examples.map((e: Body) => e.entity)).to.include(nordwerk!.name);
      expect(diagnostics.findings.map((f: Body) => f.code)).to.include("values_refused:quote_not_about_value");
      // The entity's diagnosis names the page, the value and quote refused, and why.
      const facts = (await diagnosis(nordwerk!.name, "employees")).entityFacts as Body[];
      const refused = facts.find((f) => f.code === "quote_not_about_value") as Body;
      expect(refused.stage).to.equal("validation");
      expect(refused.detail).to.contain("/c/nordwerk").and.to.contain("of the company's");
    });

    it("refuses a sentence that names no company credited to one (quote_not_about_entity)", async () => {
      const diagnostics = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics;
      const codes = (diagnostics.summary.failureGroups as Body[]).map((g) => `${g.stage}:${g.code}`);
      expect(codes).to.include("validation:quote_not_about_entity");
      const rows = (await owner.get(`/v1/datasets/${dataset.id}/rows`, { limit: 100 })).body.data as Body[];
      expect(rows.map((r) => r.data[columnId(dataset, "employees")])).to.not.include(40_000);
    });

    it("decides pages that disagree by the written rule and shows every value with its page and quote", async () => {
      expect(cell(await rowOf(harrow!.name), "founded")).to.equal(harrow!.facts.founded);
      const entity = await diagnosis(harrow!.name, "founded");
      expect(entity.outcome).to.equal("ambiguous");
      const conflicts = entity.entityFacts.filter((f: Body) => f.code === "value_conflict") as Body[];
      const said = conflicts.map((f) => f.detail as string);
      expect(said.filter((d) => d.includes("; written, because the value most pages support"))).to.have.length(2);
      expect(said.filter((d) => d.includes("not written"))).to.have.length(1);
      expect(said.find((d) => d.includes("not written")))
        .to.contain(`/news/`)
        .and.to.contain(String((harrow!.facts.founded as number) + 1));
    });

    it("records a profile answering 403 as not read and charges only the pages read", async () => {
      const trace = (await owner.get(`/v1/runs/${run.id}/trace`)).body.trace;
      const reads = trace.steps.filter((s: Body) => s.phase === "read") as Body[];
      const failed = reads.filter((s) => s.status === "failed");
      expect(failed.map((s) => s.sourceUrl)).to.deep.equal([
        web.urls.find((u) => u.endsWith(`/c/${blocked!.bare.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`)),
      ]);
      const readable = spec.pages.filter((p) => p.status === 200).length;
      expect((await owner.get("/v1/usage")).body.balance).to.equal(credits - readable);
    });

    it("replay from the artifacts gives the recorded diagnostics", async () => {
      const recorded = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true" })).body.diagnostics;
      const replayed = (await owner.get(`/v1/runs/${run.id}/diagnostics`, { summary: "true", basis: "replay" })).body
        .diagnostics;
      expect(withoutBasis(replayed)).to.deep.equal(withoutBasis(recorded));
    });
  });
  languageCases(set);
  modelFailureCases(set);
};

/**
 * A model that copies numbers as the page writes them: the German page's "8.919 Mitarbeiter" is read
 * by the page's language (`<html lang="de">`) as 8919, the model's own "8.919" stored as 8919, and a
 * replay reads it the same way from the cleaned text's recorded language.
 */
const languageCases = (set: AdapterSet): void => {
  describe("numbers read by the page's language", () => {
    it('stores a German page\'s "8.919", as the model copies it, as 8919, and replays it so', async () => {
      // Two companies: the directory's sentence naming neither is about neither.
      const spec = companyWeb(2);
      const [nordwerk] = spec.companies;
      const web = await startCompanyWeb(spec);
      const searxng = await startSearxngStub(web.search);
      const host = await startResearchHost(set, "research_language", {
        model: Layer.succeed(LanguageModel, readerModel({ asWritten: true })),
        search: SearxngLive({ url: searxng.url }),
      });
      try {
        const owner = await ownerOn(host, 20);
        const dataset = await createDataset(owner, companiesDataset(web.urls[0] as string));
        const run = await researchToEnd(owner, dataset.id);
        expect(run.status, JSON.stringify(run)).to.equal("succeeded");
        const rows = (await owner.get(`/v1/datasets/${dataset.id}/rows`)).body.data as Body[];
        const row = rows.find((r) => r.identity.anchor === nordwerk!.name);
        expect(row?.data[columnId(dataset, "employees")]).to.equal(nordwerk!.facts.employees);
        const artifacts = (await owner.get(`/v1/runs/${run.id}/artifacts`)).body.artifacts as Body[];
        const german = artifacts.find((a) => a.kind === "cleaned page text" && a.url.includes("/de/")) as Body;
        expect(german.contentType).to.equal("text/plain; lang=de; headings=marked");
        const replayed = (
          await owner.get(`/v1/runs/${run.id}/diagnostics`, { entity: nordwerk!.name, basis: "replay" })
        ).body.diagnostics.entity;
        const employees = replayed.cells.find((c: Body) => c.fieldId === columnId(dataset, "employees"));
        expect(employees.value).to.equal(nordwerk!.facts.employees);
      } finally {
        await host.close();
        await searxng.close();
        await web.close();
      }
    });
  });
};

/** A loopback Chat Completions server that answers every request with `status` and an OpenAI-style error body. */
const startFailingModelServer = async (status: number) => {
  const server = createServer((req, res) => {
    req.resume().on("end", () => {
      const body = { error: { message: `HTTP ${status} from the model server`, type: "server_error", code: null } };
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/**
 * A model server that fails, end to end through the OpenAI-compatible adapter on the set's store and
 * queue: the run fails with the failure named as what it is, nothing written or charged, and the
 * failure is logged with the upstream status and never the key.
 */
const modelFailureCases = (set: AdapterSet): void => {
  describe("a model server that fails (the OpenAI-compatible adapter)", () => {
    const apiKey = "sk-gleaner-conformance-secret";
    const failing = [
      [503, "the model server failed (HTTP 503)"],
      [404, 'does not know the model "no-such-model": check GLEANER_MODEL_NAME'],
    ] as const;
    for (const [status, said] of failing) {
      it(`a ${status} from the model server fails the run saying "${said}"; logged without the key`, async () => {
        const server = await startFailingModelServer(status);
        const web = await startCompanyWeb(companyWeb(1));
        const lines: string[] = [];
        const logs = new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk));
            done();
          },
        });
        const model = OpenAiModelLive({
          url: server.url,
          apiKey: Redacted.make(apiKey),
          model: "no-such-model",
          maxRetries: 1,
          retryBaseMs: 10,
        });
        const host = await startResearchHost(set, `research_model_${status}`, { model }, pino({ level: "info" }, logs));
        try {
          const owner = await ownerOn(host, 10);
          const dataset = await createDataset(owner, companiesDataset(web.urls[0] as string));
          const run = await researchToEnd(owner, dataset.id);
          expect(run.status).to.equal("failed");
          expect(run.error).to.contain(said).and.to.not.contain("did not answer in time");
          expect((await owner.get(`/v1/datasets/${dataset.id}/rows`)).body.data).to.deep.equal([]);
          expect((await owner.get("/v1/usage")).body.balance).to.equal(10);
          const failed = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "run failed" && l.runId === run.id);
          expect(failed?.error).to.contain(said);
          expect(lines.join("")).to.not.contain(apiKey);
        } finally {
          await host.close();
          await web.close();
          await server.close();
        }
      });
    }
  });
};

export const researchWebCapability: Capability = {
  name: "research over a web of pages",
  register: researchWebCases,
};
