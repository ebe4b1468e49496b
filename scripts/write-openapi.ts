/**
 * Writes the OpenAPI document built from the host's route table to hosts/client/openapi.json and
 * regenerates the client's types from it. `npm run openapi`; CI checks that nothing changed.
 */
import { writeFileSync } from "node:fs";
import { buildOpenApi, routes } from "@gleaner/koa";

const target = new URL("../hosts/client/openapi.json", import.meta.url);
writeFileSync(target, `${JSON.stringify(buildOpenApi(routes), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
