import { getUsage, Usage } from "@gleaner/core";
import { type Route, route } from "./route.js";

/** Endpoint 16. */
export const usageRoutes: ReadonlyArray<Route> = [
  route({
    method: "get",
    path: "/v1/usage",
    operationId: "getUsage",
    tag: "Usage",
    summary: "Read the balance and ledger",
    description:
      "Your credit balance and the ledger entries (grants, charges, refunds) of the last 30 days, newest first. " +
      "An accepted run costs one credit per distinct checked page; failed, blocked and held runs cost nothing.",
    auth: true,
    success: { status: 200, description: "Balance and ledger.", schema: Usage },
    handle: ({ owner }) => getUsage(owner.id),
  }),
];
