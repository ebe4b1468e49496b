import { type DatasetId, HeldOutcome, storedDecoder } from "@gleaner/core";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Schema from "effect/Schema";
import type { ClientSession } from "mongodb";
import { toUuid } from "./bson.js";
import type { Mongo } from "./mongo.js";
import type { Collections } from "./schema.js";

const decodeOutcome = storedDecoder(HeldOutcome, "MongoDB", "held outcome");

export const keepHeldOutcome = async (collections: Collections, session: ClientSession, outcome: HeldOutcome) => {
  const encoded = JSON.stringify(Schema.encodeSync(HeldOutcome)(outcome));
  await collections.heldOutcomes.replaceOne(
    { _id: toUuid(outcome.datasetId) },
    { runId: toUuid(outcome.runId), outcome: encoded },
    { session, upsert: true },
  );
};

export const dropHeldOutcome = async (collections: Collections, session: ClientSession, datasetId: string) => {
  await collections.heldOutcomes.deleteOne({ _id: toUuid(datasetId) }, { session });
};

export const heldOutcomeOf = (mongo: Mongo, datasetId: DatasetId) =>
  Effect.flatMap(
    mongo.run("heldOutcome", () => mongo.collections.heldOutcomes.findOne({ _id: toUuid(datasetId) })),
    (doc) =>
      doc === null
        ? Effect.succeed(Option.none())
        : Effect.map(decodeOutcome(JSON.parse(doc.outcome), datasetId), Option.some),
  );
