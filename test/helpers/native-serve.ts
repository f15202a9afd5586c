/**
 * A web-standard fetch handler on the runtime's own HTTP server, as apps on those runtimes mount
 * mcpwire's `createHttpHandler`: `Bun.serve` under Bun, `Deno.serve` under Deno (not their
 * node:http emulations). Used by the runtime tests' fixture and the Bun bench rows. Neither
 * runtime's types are installed, so the little used here is declared.
 */
type FetchHandler = (request: Request) => Response | Promise<Response>;

interface BunGlobal {
  serve(options: { hostname: string; port: number; fetch: FetchHandler }): {
    readonly port: number;
    stop(closeActiveConnections?: boolean): Promise<void> | void;
  };
}
interface DenoGlobal {
  serve(
    options: { hostname: string; port: number; onListen(address: { port: number }): void },
    handler: FetchHandler,
  ): { shutdown(): Promise<void> };
}

export interface NativeServer {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  close(): Promise<void>;
}

/** Serves `fetch` on 127.0.0.1 (`port` 0: a free one) with Bun.serve or Deno.serve. */
export async function serveNative(fetch: FetchHandler, port: number): Promise<NativeServer> {
  const runtime = globalThis as { Bun?: BunGlobal; Deno?: DenoGlobal };
  if (runtime.Bun) {
    const server = runtime.Bun.serve({ hostname: "127.0.0.1", port, fetch });
    return {
      url: `http://127.0.0.1:${server.port}/mcp`,
      close: async () => {
        await server.stop(true);
      },
    };
  }
  if (runtime.Deno) {
    const deno = runtime.Deno;
    return new Promise((resolve) => {
      const server = deno.serve(
        {
          hostname: "127.0.0.1",
          port,
          onListen: ({ port: bound }) =>
            resolve({ url: `http://127.0.0.1:${bound}/mcp`, close: () => server.shutdown() }),
        },
        fetch,
      );
    });
  }
  throw new Error("serveNative needs Bun (Bun.serve) or Deno (Deno.serve)");
}
