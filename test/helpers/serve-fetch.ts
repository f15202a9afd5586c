/**
 * Serves a web-standard `fetch(request)` handler (the official SDK's createMcpHandler, its auth
 * helpers) on node:http at 127.0.0.1: the tests' own small adapter, streaming the answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ServedFetch {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  close(): Promise<void>;
}

export async function serveFetch(
  handler: (request: Request) => Promise<Response>,
): Promise<ServedFetch> {
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const abort = new AbortController();
      res.on("close", () => abort.abort());
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD" && chunks.length > 0;
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
        signal: abort.signal,
      });
      try {
        const response = await handler(request);
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (!response.body) return void res.end();
        const reader = response.body.getReader();
        abort.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          res.write(value);
        }
        res.end();
      } catch {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
