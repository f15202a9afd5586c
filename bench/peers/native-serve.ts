/**
 * A web-standard fetch handler on Bun's own server (`Bun.serve`), for the Bun rows that measure
 * mcpwire's handler the way Bun apps mount it, not through Bun's node:http emulation. Bun only:
 * its types are not installed, so the little used here is declared.
 */
interface BunServer {
  readonly port: number;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}
interface BunGlobal {
  serve(options: {
    hostname: string;
    port: number;
    fetch(request: Request): Response | Promise<Response>;
  }): BunServer;
}

/** Serves `fetch` on 127.0.0.1; resolves with the /mcp URL and a stop function. */
export function serveNative(
  fetch: (request: Request) => Response | Promise<Response>,
  port: number,
): { url: string; close(): Promise<void> } {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  if (!bun) throw new Error("--native needs Bun (Bun.serve)");
  const server = bun.serve({ hostname: "127.0.0.1", port, fetch });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    close: async () => {
      await server.stop(true);
    },
  };
}
