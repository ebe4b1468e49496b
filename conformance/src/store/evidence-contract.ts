import { createHash } from "node:crypto";
import { newId, type RunAcceptance } from "@gleaner/core";
import { expect } from "chai";
import * as Option from "effect/Option";
import { it } from "../runner.js";
import { anAcceptance } from "./fixtures.js";
import type { StoreHarness } from "./harness.js";

/** A run's evidence as a store keeps it, inside storeContract: bodies, the trace, the artifacts' index, the stamp. */
export const evidenceStoreCases = ({ run, runningRun }: StoreHarness): void => {
  it("keeps a page body with a NUL byte, and returns evidence as stored", async () => {
    const { running } = await runningRun(10);
    const acceptance = anAcceptance(running, 1, []);
    await run((s) => s.acceptRun(acceptance));
    const evidence = Option.getOrThrow(await run((s) => s.getRunEvidence(running.id)));
    expect(evidence).to.deep.equal(acceptance.evidence);
    const artifact = Option.getOrThrow(await run((s) => s.getArtifact(running.id, "page-1")));
    expect(artifact.body).to.equal("<p>a\u0000b</p>");
  });

  it("reads a run's trace alone, and its artifacts without bodies in evidence order, as its evidence has them", async () => {
    const { running } = await runningRun(10);
    const base = anAcceptance(running, 1, ["a"]);
    const [page] = base.evidence.artifacts;
    const output = '{"rows":[]}';
    const artifacts = [
      page!,
      { ...page!, id: "page-2", url: "http://127.0.0.1/page-2", size: 70_000, truncated: true, body: null },
      {
        ...page!,
        id: "output-1",
        kind: "extraction output" as const,
        contentType: "application/json",
        sha256: createHash("sha256").update(output).digest("hex"),
        size: output.length,
        body: output,
      },
    ];
    const acceptance = { ...base, evidence: { ...base.evidence, artifacts } };
    // In flight: no evidence yet, so neither is there.
    expect(Option.isNone(await run((s) => s.getRunTrace(running.id)))).to.equal(true);
    expect(Option.isNone(await run((s) => s.listRunArtifacts(running.id)))).to.equal(true);
    await run((s) => s.acceptRun(acceptance));
    const evidence = Option.getOrThrow(await run((s) => s.getRunEvidence(running.id)));
    expect(Option.getOrThrow(await run((s) => s.getRunTrace(running.id)))).to.deep.equal(evidence.trace);
    const index = Option.getOrThrow(await run((s) => s.listRunArtifacts(running.id)));
    expect(index).to.deep.equal({
      recipe: null,
      artifacts: evidence.artifacts.map(({ body: _body, ...entry }) => entry),
    });
    expect(index.artifacts.map((a) => a.id)).to.deep.equal(["page-1", "page-2", "output-1"]);
    expect(index.artifacts.every((a) => !("body" in a))).to.equal(true);
    // A held run keeps its trace and no artifact: an empty index, not none.
    const held = await runningRun(0);
    await run((s) => s.acceptRun(anAcceptance(held.running, 5, [])));
    const heldEvidence = Option.getOrThrow(await run((s) => s.getRunEvidence(held.running.id)));
    expect(Option.getOrThrow(await run((s) => s.getRunTrace(held.running.id)))).to.deep.equal(heldEvidence.trace);
    expect(Option.getOrThrow(await run((s) => s.listRunArtifacts(held.running.id)))).to.deep.equal({
      recipe: null,
      artifacts: [],
    });
  });

  it("serves the same page body with every run's artifact, stored once by two acceptances at once or named as held already", async () => {
    const body = `<p>é\u0000 shared ${newId()}</p>`;
    const sha256 = createHash("sha256").update(body).digest("hex");
    const withBody = (base: RunAcceptance, bodiesStored?: ReadonlyArray<string>): RunAcceptance => {
      const [page] = base.evidence.artifacts;
      const artifact = { ...page!, sha256, size: Buffer.byteLength(body), body };
      return {
        ...base,
        evidence: { ...base.evidence, artifacts: [artifact] },
        ...(bodiesStored ? { bodiesStored } : {}),
      };
    };
    // Two runs (of two owners, so nothing else serializes them) store the same bytes at once.
    const [one, two] = await Promise.all([runningRun(10), runningRun(10)]);
    const accepted = [withBody(anAcceptance(one.running, 1, [])), withBody(anAcceptance(two.running, 1, []))];
    const outcomes = await Promise.all(accepted.map((acceptance) => run((s) => s.acceptRun(acceptance))));
    expect(outcomes.map((o) => o._tag)).to.deep.equal(["Accepted", "Accepted"]);
    // A later run names the body as held by the store already (a reused page's kept read carried it).
    const three = await runningRun(10);
    const named = withBody(anAcceptance(three.running, 1, []), [sha256]);
    expect((await run((s) => s.acceptRun(named)))._tag).to.equal("Accepted");
    for (const [acceptance, running] of [
      [accepted[0]!, one.running],
      [accepted[1]!, two.running],
      [named, three.running],
    ] as const) {
      const artifact = acceptance.evidence.artifacts[0]!;
      expect(Option.getOrThrow(await run((s) => s.getArtifact(running.id, artifact.id))).body).to.equal(body);
    }
  });

  it("stamps the run's completedAt and the trace's accept step when it writes them, in the same write", async () => {
    const { ownerId, running } = await runningRun(10);
    const base = anAcceptance(running, 1, ["a"]);
    // The engine hands over a provisional completedAt (when reconciliation ended), long before this write.
    const startedAt = base.run.completedAt!;
    const accept = { phase: "accept" as const, status: "succeeded" as const, startedAt, durationMs: 1 };
    const step = { stepId: globalThis.crypto.randomUUID(), attemptId: globalThis.crypto.randomUUID(), ...accept };
    const trace = {
      ...base.evidence.trace,
      steps: [step],
      phases: [{ phase: "accept" as const, count: 1, totalMs: 1, maxMs: 1 }],
    };
    const acceptance = { ...base, evidence: { ...base.evidence, trace } };
    const before = Date.now();
    const outcome = await run((s) => s.acceptRun(acceptance));
    const stored = Option.getOrThrow(await run((s) => s.getRun(ownerId, running.id)));
    expect(outcome).to.deep.equal({ _tag: "Accepted", run: stored });
    const completedAt = Date.parse(stored.completedAt!);
    expect(completedAt).to.be.at.least(before - 1);
    const evidence = Option.getOrThrow(await run((s) => s.getRunEvidence(running.id)));
    const last = evidence.trace.steps.at(-1)!;
    expect(Date.parse(last.startedAt) + last.durationMs!).to.equal(completedAt);
    expect(evidence.trace.phases).to.deep.equal([
      { phase: "accept", count: 1, totalMs: last.durationMs, maxMs: last.durationMs },
    ]);
    expect(evidence.trace.wallMs).to.equal(completedAt - Date.parse(running.startedAt!));
  });
};
