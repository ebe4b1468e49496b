import { suite } from "@gleaner/conformance";
import { after, describe } from "mocha";
import { PostgresStoreLive } from "../src/index.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

await whenPostgresReachable("Gleaner conformance: postgres", (url) => {
  const schema = freshSchema();
  describe(`postgres adapter (schema ${schema})`, () => {
    suite({
      name: "postgres",
      layer: () => PostgresStoreLive({ url, schema }),
    });
    after(() => dropSchema(url, schema));
  });
});
