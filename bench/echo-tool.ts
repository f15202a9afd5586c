/**
 * mcpwire's echo server as every bench server registers it: tool `echo` takes
 * `{ text: string }` and returns `{ content: [{ type: "text", text }] }`. No Node module, so the
 * Worker of the workerd rows (workers/echo-worker.ts) builds the same server as echo-server.ts.
 */
import { McpServer, type McpServerOptions } from "mcpwire/server";

export function createEchoServer(
  options: { middleware?: boolean; eras?: McpServerOptions["eras"] } = {},
): McpServer {
  const server = new McpServer({
    serverInfo: { name: "mcpwire-bench-echo", version: "1.0.0" },
    ...(options.eras ? { eras: options.eras } : {}),
  });
  if (options.middleware) server.use((_ctx, next) => next());
  server.tool(
    {
      name: "echo",
      description: "Returns its text argument.",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      },
    },
    (args) => ({ content: [{ type: "text", text: args.text as string }] }),
  );
  return server;
}
