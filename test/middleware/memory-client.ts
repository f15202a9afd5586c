import { McpClient } from "../../src/client/index.js";
import type { McpServer } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";

/** A client connected to `server` over an in-memory pair, answering elicitations with "Ada". */
export async function memoryClient(
  server: McpServer,
  era: "modern" | "legacy",
): Promise<McpClient> {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const client = new McpClient({
    clientInfo: { name: "c", version: "1" },
    era,
    handlers: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) },
  });
  await client.connect(clientSide);
  return client;
}
