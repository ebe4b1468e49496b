import { storeContract } from "@gleaner/conformance";
import { PostgresStoreLive } from "../src/index.js";
import { dropSchema, freshSchema, whenPostgresReachable } from "./support.js";

await whenPostgresReachable("postgres store: concurrency and idempotency", (url) => {
  const schema = freshSchema();
  storeContract({
    name: "postgres store",
    layer: () => PostgresStoreLive({ url, schema, poolSize: 12 }),
    cleanup: () => dropSchema(url, schema),
  });
});
