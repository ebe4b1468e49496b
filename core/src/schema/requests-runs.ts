import * as Schema from "effect/Schema";
import { RunKind } from "./research.js";

/**
 * Endpoint 10's optional body (an extension of SPEC.md, which sends none): no body, or `{}`, is a
 * deterministic run. docs/decisions/0017-http-contract.md.
 */
export const CreateRunRequest = Schema.Struct({
  kind: Schema.optional(
    RunKind.annotations({
      description: "`deterministic` (the default) runs the declared source; `research` is a model-assisted run.",
    }),
  ),
}).annotations({ identifier: "CreateRunRequest" });
export type CreateRunRequest = typeof CreateRunRequest.Type;
