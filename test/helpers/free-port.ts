import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that was free a moment ago (for programs that need a fixed --port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port; rejects after `waitMs`. */
export async function portAccepting(port: number, waitMs: number, what: string): Promise<void> {
  const { connect } = await import("node:net");
  const deadline = Date.now() + waitMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline)
      throw new Error(`${what} did not accept connections on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
