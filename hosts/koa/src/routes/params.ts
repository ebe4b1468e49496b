import type { Owner } from "@gleaner/core";
import { HttpError } from "../http/errors.js";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id that is not a UUID names nothing, so it is a 404 like any unknown id. */
export const pathId = (value: string | undefined, resource: string): string => {
  if (!value || !uuid.test(value)) {
    throw new HttpError(404, "not_found", `No ${resource} with id ${value ?? ""} exists for this owner.`);
  }
  return value.toLowerCase();
};

export const ownerOf = (ctx: { state: { owner?: Owner } }): Owner => {
  const owner = ctx.state.owner;
  if (!owner) throw new HttpError(401, "unauthorized", "A valid API key is required.");
  return owner;
};
