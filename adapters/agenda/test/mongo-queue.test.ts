import { after, describe, it } from "mocha";
import { AgendaRunQueueLive } from "../src/index.js";
import { type Built, build, expectOwnersServedInTurn, freshName } from "./support.js";

/**
 * Agenda on MongoDB: runs only against a server named by GLEANER_MONGODB_URL (none can be installed
 * on the project's machines or in CI); without it this prints what was not run. The whole spec runs
 * on this backend in adapters/mongodb/test/conformance.test.ts under the same condition.
 */
const url = process.env.GLEANER_MONGODB_URL;
if (!url) {
  console.log(
    "[agenda] NOT RUN: @gleaner/agenda on MongoDB — GLEANER_MONGODB_URL is not set, and no MongoDB server can be installed here.",
  );
} else {
  describe("@gleaner/agenda on MongoDB", function () {
    this.timeout(60_000);
    const opened: Built[] = [];
    const collection = freshName("agenda_fair_");
    after(async () => {
      for (const built of opened) await built.close().catch(() => undefined);
    });

    it("serves owners in turn: one owner's 20 waiting runs do not hold back another owner's run", () =>
      expectOwnersServedInTurn(async (processEvery) => {
        const built = await build(AgendaRunQueueLive({ backend: "mongodb", url, collection, processEvery }));
        opened.push(built);
        return built;
      }));
  });
}
