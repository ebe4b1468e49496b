import { suite } from "@gleaner/conformance";
import { PostgresStoreLive } from "@gleaner/postgres";
import { after, describe } from "mocha";
import { AgendaRunQueueLive } from "../src/index.js";
import { dropSchema, freshName, whenPostgresReachable } from "./support.js";

await whenPostgresReachable("Gleaner conformance: postgres + agenda(postgres)", (url) => {
  // The store and the queue share one schema of their own per test run, as in a deployment.
  const schema = freshName("gl_conf_agenda_");
  describe(`postgres + agenda(postgres) (schema ${schema})`, () => {
    suite({
      name: "postgres + agenda(postgres)",
      layer: () => PostgresStoreLive({ url, schema }),
      // A named queue (research's extra hosts) is a jobs table of its own in the same schema.
      queue: (name) =>
        AgendaRunQueueLive({ backend: "postgres", url, schema, ...(name ? { tableName: `agenda_jobs_${name}` } : {}) }),
      supports: { virtualTime: false },
    });
    after(() => dropSchema(url, schema));
  });
});
