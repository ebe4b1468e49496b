import type { GleanerClient } from "@gleaner/client";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { gleanerMcpServer } from "./tools.js";

/**
 * `gleaner mcp`: the same tools over stdio, for an MCP client that starts Gleaner as a process (Claude
 * Desktop, an IDE). It talks to a running server with GLEANER_URL and GLEANER_API_KEY, and writes
 * nothing but the protocol to stdout.
 */
export const serveMcpOverStdio = async (client: GleanerClient): Promise<void> => {
  const server = gleanerMcpServer(client, "0.1.0");
  await server.connect(new StdioServerTransport());
};
