/**
 * The official SDK v2 (@modelcontextprotocol/server) serving the same echo tool, the way its
 * documentation wires it:
 *   --stdio                    serveStdio(factory) (modern and legacy on one process)
 *   --http [--sse]             createMcpHandler(factory) (modern per-request, stateless legacy)
 *   --legacy-sessions [--sse]  2025-era sessionful Streamable HTTP: one McpServer + transport per
 *                              session (JSON replies, or SSE with --sse)
 * HTTP modes print `listening <url>` first on stdout.
 */
import { randomUUID } from "node:crypto";
import {
  createMcpHandler,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";
import { listenFetch } from "./fetch-adapter.js";
import { installGcHook } from "./gc-hook.js";

function createEchoServer(): McpServer {
  const server = new McpServer({ name: "sdk-bench-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Returns its text argument.", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text" as const, text }] }),
  );
  return server;
}

async function legacySessions(sse: boolean): Promise<(request: Request) => Promise<Response>> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return async (request) => {
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const known = sessions.get(id);
      if (!known) return new Response("unknown session", { status: 404 });
      return known.handleRequest(request);
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // JSON replies unless --sse (the SDK's own default is an SSE stream per request).
      enableJsonResponse: !sse,
      onsessioninitialized: (sessionId: string) => {
        sessions.set(sessionId, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await createEchoServer().connect(transport);
    return transport.handleRequest(request);
  };
}

const argv = process.argv.slice(2);
if (argv.includes("--stdio")) {
  serveStdio(() => createEchoServer());
} else {
  installGcHook();
  const handler = argv.includes("--legacy-sessions")
    ? await legacySessions(argv.includes("--sse"))
    : createMcpHandler(() => createEchoServer(), {
        responseMode: argv.includes("--sse") ? "sse" : "json",
      }).fetch;
  const portIndex = argv.indexOf("--port");
  const { url, server } = await listenFetch(
    handler,
    portIndex >= 0 ? Number(argv[portIndex + 1]) : 0,
  );
  process.stdout.write(`listening ${url}\n`);
  process.once("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
