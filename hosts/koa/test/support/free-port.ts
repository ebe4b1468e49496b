import { createServer } from "node:net";

/** A loopback port nobody listens on now, for a listener a test configures by number (the metrics one). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
