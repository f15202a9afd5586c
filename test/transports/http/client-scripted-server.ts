/**
 * A node:http server on 127.0.0.1 whose every answer a test scripts by hand, recording each
 * request (method, headers, body) and whether the client hung up before the answer ended.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Captured {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed JSON body, when there is one. */
  json: Record<string, unknown> | undefined;
  /** Resolves when the client closed the connection before the response was finished. */
  clientGone: Promise<void>;
}

export type Script = (request: Captured, response: ServerResponse) => void | Promise<void>;

export interface ScriptedServer {
  url: string;
  requests: Captured[];
  /** Requests that carried a JSON-RPC method, in arrival order. */
  methods(): string[];
  close(): Promise<void>;
}

export async function scriptedServer(script: Script): Promise<ScriptedServer> {
  const requests: Captured[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: Record<string, unknown> | undefined;
      try {
        json = body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      const clientGone = new Promise<void>((resolve) => {
        res.on("close", () => {
          if (!res.writableFinished) resolve();
        });
      });
      const captured: Captured = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        json,
        clientGone,
      };
      requests.push(captured);
      Promise.resolve(script(captured, res)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    methods: () =>
      requests.flatMap((request) =>
        typeof request.json?.method === "string" ? [request.json.method] : [],
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes one JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Starts an SSE response and returns a writer for events. */
export function startSse(res: ServerResponse, headers = {}) {
  res.writeHead(200, { "Content-Type": "text/event-stream", ...headers });
  return (data: unknown, fields: { id?: string; retry?: number; event?: string } = {}) => {
    let text = "";
    if (fields.event) text += `event: ${fields.event}\n`;
    if (fields.id !== undefined) text += `id: ${fields.id}\n`;
    if (fields.retry !== undefined) text += `retry: ${fields.retry}\n`;
    text += `data: ${data === "" ? "" : JSON.stringify(data)}\n\n`;
    res.write(text);
  };
}

/** The JSON-RPC result reply to a captured request. */
export function result(request: Captured, value: Record<string, unknown>) {
  return { jsonrpc: "2.0", id: request.json?.id, result: value };
}

export function rpcError(
  request: Captured | undefined,
  code: number,
  message: string,
  data?: unknown,
) {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: "2.0", id: request?.json?.id ?? null, error };
}

export const DISCOVER_RESULT = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "scripted", version: "1.0.0" } },
};

export const INITIALIZE_RESULT = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: {} },
  serverInfo: { name: "scripted-legacy", version: "1.0.0" },
};
