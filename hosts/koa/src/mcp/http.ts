import { createGleanerClient } from "@gleaner/client";
import { authenticateWithBalance } from "@gleaner/core";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Middleware } from "koa";
import type { GleanerState } from "../http/middleware.js";
import { type GleanerRuntime, runUseCase } from "../http/runtime.js";
import { gleanerMcpServer } from "./tools.js";

export const mcpPath = "/mcp";
const version = "0.1.0";

/** The API on the address this request came in on: the tools call it with the caller's own key. */
const selfUrl = (local: string | undefined, port: number | undefined) => {
  const address = !local || local === "::" || local === "0.0.0.0" ? "127.0.0.1" : local.replace(/^::ffff:/, "");
  return `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
};

/**
 * The Model Context Protocol over Streamable HTTP at /mcp, on the API's port: a bearer key as every
 * API route wants (401 otherwise), then one stateless MCP server per request whose tools call the
 * API with that key, so an agent sees and spends exactly what the key's owner may.
 */
export const mcpMiddleware =
  (runtime: GleanerRuntime): Middleware<GleanerState> =>
  async (ctx, next) => {
    if (ctx.path !== mcpPath) return next();
    ctx.state.operationId = "mcp";
    const authorization = ctx.get("Authorization") || undefined;
    const { owner, balance } = await runUseCase(runtime, authenticateWithBalance(authorization));
    ctx.state.owner = owner;
    ctx.state.balance = balance;
    if (ctx.method !== "POST") {
      ctx.status = 405;
      ctx.set("Allow", "POST");
      return;
    }
    const apiKey = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1] as string;
    const client = createGleanerClient({
      baseUrl: selfUrl(ctx.req.socket.localAddress, ctx.req.socket.localPort),
      apiKey,
    });
    const server = gleanerMcpServer(client, version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    ctx.respond = false;
    ctx.res.setHeader("X-Credits-Remaining", String(balance));
    ctx.res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(ctx.req, ctx.res);
  };
