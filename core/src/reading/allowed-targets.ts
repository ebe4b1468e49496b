import * as Context from "effect/Context";
import { type AllowList, emptyAllowList } from "./target-policy.js";

/**
 * The operator's GLEANER_ALLOW_PRIVATE_TARGETS, for rules outside the fetchers (a source URL that is
 * a private IP literal is refused when the dataset is created). A Reference: without a layer it is
 * the empty list, so embedders who never configure private targets need not provide it.
 */
export class AllowedTargets extends Context.Reference<AllowedTargets>()("@gleaner/core/AllowedTargets", {
  defaultValue: (): AllowList => emptyAllowList,
}) {}
