/**
 * Scripted servers' answers for the auth seam tests (client-scripted-server.ts): a modern
 * endpoint, a legacy Streamable HTTP one (session, GET stream, DELETE) and a 2024-11-05
 * HTTP+SSE one, each answering a tool call with TOOL_RESULT.
 */
import type { ServerResponse } from "node:http";
import {
  type Captured,
  DISCOVER_RESULT,
  INITIALIZE_RESULT,
  result,
  sendJson,
  startSse,
} from "../transports/http/client-scripted-server.js";

export const TOOL_RESULT = { content: [{ type: "text", text: "done" }] };

export function modernScript(request: Captured, res: ServerResponse) {
  if (request.json?.method === "server/discover") {
    return sendJson(res, 200, result(request, DISCOVER_RESULT));
  }
  if (request.json?.id === undefined) return void res.writeHead(202).end();
  sendJson(res, 200, result(request, TOOL_RESULT));
}

export function legacyScript(request: Captured, res: ServerResponse) {
  if (request.method === "GET") {
    startSse(res);
    // The stream's headers now, not with its first event (there is none here).
    return void res.flushHeaders();
  }
  if (request.method === "DELETE") return void res.writeHead(200).end();
  if (request.json?.method === "initialize") {
    return sendJson(res, 200, result(request, INITIALIZE_RESULT), { "Mcp-Session-Id": "s-1" });
  }
  if (request.json?.id === undefined) return void res.writeHead(202).end();
  sendJson(res, 200, result(request, TOOL_RESULT));
}

/** A 2024-11-05 server: 405 to POSTs at the endpoint, replies on the GET stream. */
export function sseFallbackScript(): (request: Captured, res: ServerResponse) => void {
  let stream: ((data: unknown) => void) | undefined;
  return (request, res) => {
    if (request.method === "GET") {
      stream = startSse(res);
      res.write("event: endpoint\ndata: /messages?sessionId=abc\n\n");
      return;
    }
    if (request.path.startsWith("/messages")) {
      res.writeHead(202).end();
      const method = request.json?.method;
      if (method === "initialize") {
        stream?.(result(request, { ...INITIALIZE_RESULT, protocolVersion: "2024-11-05" }));
      } else if (request.json?.id !== undefined) stream?.(result(request, TOOL_RESULT));
      return;
    }
    res.writeHead(405).end();
  };
}
