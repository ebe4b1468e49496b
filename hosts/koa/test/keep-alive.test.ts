import { connect } from "node:net";
import { once } from "node:events";
import { expect } from "chai";
import { MemoryStoreLive } from "@gleaner/memory";
import { type RunningHost, startHost } from "@gleaner/koa";

/** Sends one GET on the socket and resolves with the status line of its answer. */
const statusLine = async (socket: ReturnType<typeof connect>, path: string): Promise<string> => {
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
  const [chunk] = (await once(socket, "data")) as [Buffer];
  return chunk.toString("latin1").split("\r\n")[0] ?? "";
};

describe("HTTP keep-alive", function () {
  this.timeout(30_000);
  let host: RunningHost;
  before(async () => {
    host = await startHost({
      config: { port: 0, host: "127.0.0.1", logLevel: "silent" },
      overrides: { store: MemoryStoreLive },
    });
  });
  after(async () => host?.close());

  it("keeps an idle connection open past Node's 5 s default, so a client pausing between requests is not reset", async () => {
    const { port } = new URL(host.url);
    const socket = connect(Number(port), "127.0.0.1");
    await once(socket, "connect");
    try {
      expect(await statusLine(socket, "/healthz")).to.equal("HTTP/1.1 200 OK");
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(socket.destroyed || socket.readyState !== "open", "the server closed the idle connection").to.equal(false);
      expect(await statusLine(socket, "/healthz")).to.equal("HTTP/1.1 200 OK");
    } finally {
      socket.destroy();
    }
  });
});
