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
  acceptDrift: Schema.optional(
    Schema.Boolean.annotations({
      description:
        "Accept the run even when it does not look like the dataset (the drift rule: far fewer records, half the " +
        "rows gone, or a column emptied); its checks must still pass. Default false: such a run is `held`.",
    }),
  ),
}).annotations({ identifier: "CreateRunRequest" });
export type CreateRunRequest = typeof CreateRunRequest.Type;

/** Endpoint 10's body as declared: optional, and one sent empty (`{}`, `[]`) starts a deterministic run too. */
export const CreateRunBody = { schema: CreateRunRequest, required: false, emptyIsNone: true };
