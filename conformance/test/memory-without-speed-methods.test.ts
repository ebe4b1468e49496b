import { capabilities, suite } from "@gleaner/conformance";
import { Storage } from "@gleaner/core";
import { MemoryStoreLive } from "@gleaner/memory";
import * as Context from "effect/Context";
import * as Layer from "effect/Layer";

/**
 * The memory store without the port's optional, speed-only methods (acceptedReads, rowsPageState):
 * core's fallbacks (storage-fallbacks.ts) must give every answer a store with them gives. The
 * capabilities that reach the fallbacks run here: rows and changes (a rows page's tag), runs and
 * row edits (every run reads every page in full). Reuse is left out: it asserts that pages are
 * reused, and a store keeping no reads has none to reuse.
 */
const withoutSpeedMethods = Layer.map(MemoryStoreLive, (context) => {
  const { acceptedReads: _reads, rowsPageState: _tag, ...required } = Context.get(context, Storage);
  return Context.add(context, Storage, required);
});

suite({ name: "memory without speed-only methods", layer: () => withoutSpeedMethods }, [
  capabilities.runs,
  capabilities.rows,
  capabilities.rowEdits,
  capabilities.changes,
]);
