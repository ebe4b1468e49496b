import {
  ApiKeyList,
  CreateApiKeyRequest,
  CreatedApiKey,
  createOwnerApiKey,
  listApiKeys,
  revokeApiKey,
} from "@gleaner/core";
import { type Route, route } from "./route.js";

/** An owner's API keys (extension): list, create (the secret shown once), revoke. */
export const keyRoutes: ReadonlyArray<Route> = [
  route({
    method: "get",
    path: "/v1/keys",
    operationId: "listKeys",
    tag: "Keys",
    summary: "List your API keys",
    description:
      "Your keys, oldest first: id, name, the first 7 and last 4 characters, when each was made and last used " +
      "(to the minute). Never a key itself nor its hash. Extension: not in SPEC.md.",
    auth: true,
    success: { status: 200, description: "The keys.", schema: ApiKeyList },
    handle: ({ owner }) => listApiKeys(owner.id),
  }),
  route({
    method: "post",
    path: "/v1/keys",
    operationId: "createKey",
    tag: "Keys",
    summary: "Create an API key",
    description:
      "A new key for you, named if you like. The key (`secret`) is in this answer only: Gleaner keeps its " +
      "SHA-256. An owner may hold a limited number of keys at once (GLEANER_OWNER_MAX_KEYS, default 25): 429 " +
      "`rate_limited` past it; revoke one first. Extension: not in SPEC.md.",
    auth: true,
    body: { schema: CreateApiKeyRequest, required: false },
    success: { status: 201, description: "The key, with its secret shown once.", schema: CreatedApiKey },
    errors: { 429: ["rate_limited"] },
    handle: ({ owner, body }) => createOwnerApiKey(owner.id, body),
  }),
  route({
    method: "delete",
    path: "/v1/keys/{keyId}",
    operationId: "revokeKey",
    tag: "Keys",
    summary: "Revoke an API key",
    description:
      "Revokes one of your keys at once, in every process: the next request with it is 401. Another owner's key " +
      "is 404. Revoking the key that makes the request is allowed. Extension: not in SPEC.md.",
    auth: true,
    pathParams: { keyId: { resource: "key", description: "The key's id (GET /v1/keys gives it)." } },
    success: { status: 204, description: "Revoked.", schema: null },
    handle: ({ owner, params }) => revokeApiKey(owner.id, params.keyId),
  }),
];
