/**
 * The conformance "everything" server: every tool, resource and prompt the official MCP
 * conformance suite calls, on mcpwire's public API.
 *
 *   npm run --silent example:everything -- --http --port 3000   # http://127.0.0.1:3000/mcp
 *   npm run --silent example:everything -- --stdio
 *
 * Over HTTP one endpoint serves both eras: 2026-07-28 requests (per-request `_meta`) and
 * 2025-era `initialize` sessions. The HTTP port is printed on stdout once listening
 * ("listening on <url>"), so a script that passes `--port 0` can read it.
 */
import { McpServer } from "../src/server/mcp-server.js";
import { serveStdio } from "../src/server/stdio.js";
import { serveHttp } from "../src/transports/http/node-adapter.js";
import { registerPrompts, registerResources } from "./everything-server/catalog.js";
import { registerDiagnosticTools } from "./everything-server/diagnostics.js";
import { registerBasicTools, registerInputTools } from "./everything-server/tools.js";

interface Args {
  mode: "http" | "stdio";
  port: number;
  host: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { mode: "stdio", port: 3000, host: "127.0.0.1" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--http") args.mode = "http";
    else if (arg === "--stdio") args.mode = "stdio";
    else if (arg === "--port") args.port = Number(argv[++i]);
    else if (arg === "--host") args.host = String(argv[++i]);
    else {
      process.stderr.write(
        `unknown argument ${arg}\nusage: everything-server (--stdio | --http [--port N] [--host H])\n`,
      );
      process.exit(2);
    }
  }
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
    process.stderr.write("--port needs a number from 0 to 65535\n");
    process.exit(2);
  }
  return args;
}

export function createEverythingServer(): McpServer {
  const server = new McpServer({
    serverInfo: { name: "mcpwire-everything-server", version: "1.0.0" },
    instructions: "The mcpwire conformance fixture: every feature the MCP conformance suite calls.",
  });
  registerBasicTools(server);
  registerInputTools(server);
  registerDiagnosticTools(server);
  registerResources(server);
  registerPrompts(server);
  return server;
}

const args = parseArgs(process.argv.slice(2));
const server = createEverythingServer();
if (args.mode === "stdio") {
  await serveStdio(server);
} else {
  const served = await serveHttp(server, {
    host: args.host,
    port: args.port,
    legacy: {
      // SSE polling (SEP-1699): test_reconnection's stream closes after the priming event and
      // the client resumes it with GET + Last-Event-ID, half a second later.
      retryMs: 500,
      disconnectAfterPriming: (method, params) =>
        method === "tools/call" && (params as { name?: unknown }).name === "test_reconnection",
    },
  });
  process.stdout.write(`listening on ${served.url}\n`);
  const stop = () => {
    void served.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
