import { join } from "node:path";
import type { Transport } from "../../src/protocol/transport.js";
import type { McpServer } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { connectSocket, listenSocket } from "../../src/transports/socket/index.js";

/** Serves `server` over some transport and returns the client's end of it. */
export type Connector = (
  server: McpServer,
) => Promise<{ transport: Transport; cleanup(): Promise<void> }>;

export const memoryConnector: Connector = async (server) => {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  return { transport: clientSide, cleanup: async () => {} };
};

export const tcpConnector: Connector = async (server) => {
  const listener = await listenSocket("tcp://127.0.0.1:0", (transport) => {
    server.connect(transport);
  });
  return { transport: await connectSocket(listener.address), cleanup: () => listener.close() };
};

/** A Unix socket in `directory` (a fresh name per connection). */
export function unixConnector(directory: string): Connector {
  return async (server) => {
    const path = join(directory, `s-${Math.random().toString(36).slice(2)}.sock`);
    const listener = await listenSocket({ kind: "unix", path }, (transport) => {
      server.connect(transport);
    });
    return { transport: await connectSocket(listener.address), cleanup: () => listener.close() };
  };
}
