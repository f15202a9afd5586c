import type { McpServerBase } from "../../server/mcp-server.js";
import { StdioServerTransport, type StdioServerTransportOptions } from "./server.js";

/**
 * Serves an McpServer on this process's stdin/stdout until stdin ends, a SIGTERM/SIGINT, or the
 * idle timeout; resolves once everything is flushed and released, so the process can exit.
 */
export async function serveStdio(
  server: McpServerBase,
  options: StdioServerTransportOptions = {},
): Promise<void> {
  const connection = server.serve(new StdioServerTransport(options));
  await connection.session.closed;
}
