import { storedDecoder } from "@gleaner/core";
import * as Either from "effect/Either";
import type * as Schema from "effect/Schema";

/**
 * Core's storedDecoder for documents read inside the store's async callbacks: a document the
 * record's schema refuses throws its StorageFailure, which `mongo.run` and the transactions pass
 * on as it is (errors.ts). Never a cast: ids are checked against their brands. `id` names the
 * record in the failure when the input carries no `id` of its own.
 */
export const decodedOrThrow = <A, I>(schema: Schema.Schema<A, I, never>, record: string) => {
  const decode = storedDecoder(schema, "MongoDB", record);
  return (input: unknown, id?: string): A => Either.getOrThrowWith(decode(input, id), (failure) => failure);
};
