/** Shared pieces of the Streamable HTTP server tests: a test server, a raw POST, an SSE reader. */

import { encodeHeaderValue } from "../../../src/protocol/http-headers.js";
import { McpServer } from "../../../src/server/index.js";
import {
  type ServedHttp,
  type ServeHttpOptions,
  serveHttp,
} from "../../../src/transports/http/node-adapter.js";

export const VERSION = "2026-07-28";

// biome-ignore lint/suspicious/noExplicitAny: replies read off the wire are inspected loosely
export type Wire = any;

/** A response body as loosely typed JSON. */
export async function json(response: Response): Promise<Wire> {
  return response.json();
}

export interface Probe {
  /** Resolves with the abort reason when the "hold" tool's signal fires. */
  holdAborted: Promise<unknown>;
  /** Resolves when the "hold" tool has started. */
  holdStarted: Promise<void>;
  principals: unknown[];
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export function buildTestServer(): { server: McpServer; probe: Probe } {
  const aborted = deferred<unknown>();
  const started = deferred<void>();
  const probe: Probe = {
    holdAborted: aborted.promise,
    holdStarted: started.promise,
    principals: [],
  };
  const server = new McpServer({
    serverInfo: { name: "http-test", version: "1.0.0" },
    onError: () => {},
  });
  server.tool(
    { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
    (args) => String(args.text),
  );
  server.tool({ name: "steps", inputSchema: { type: "object" } }, async (_args, context) => {
    for (let step = 1; step <= 3; step++) await context.progress(step, 3, `step ${step}`);
    return "done";
  });
  server.tool(
    {
      name: "delay",
      inputSchema: {
        type: "object",
        properties: { ms: { type: "integer" }, tag: { type: "string" } },
      },
    },
    async (args) => {
      await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
      return String(args.tag);
    },
  );
  server.tool({ name: "hold", inputSchema: { type: "object" } }, async (args, context) => {
    // With a progress notification first, the answer is an SSE stream; without, plain JSON.
    if (args.stream) await context.progress(0, 1);
    started.resolve();
    return new Promise((_resolve, reject) => {
      context.signal.addEventListener("abort", () => {
        aborted.resolve(context.signal.reason);
        reject(context.signal.reason);
      });
    });
  });
  server.tool({ name: "whoami", inputSchema: { type: "object" } }, (_args, context) => {
    probe.principals.push(context.principal);
    return JSON.stringify(context.principal ?? null);
  });
  server.tool(
    {
      name: "route",
      inputSchema: {
        type: "object",
        properties: {
          region: { type: "string", "x-mcp-header": "Region" },
          count: { type: "integer", "x-mcp-header": "Count" },
          flag: { type: "boolean", "x-mcp-header": "Flag" },
          place: {
            type: "object",
            properties: { zone: { type: "string", "x-mcp-header": "Zone" } },
          },
        },
      },
    },
    (args) => JSON.stringify(args),
  );
  server.resource({ uri: "mem://note", name: "note" }, (uri) => [{ uri, text: "remember" }]);
  server.resource({ uri: "mem://ünï code", name: "unicode" }, (uri) => [{ uri, text: "wide" }]);
  server.prompt({ name: "hello", arguments: [{ name: "who", required: true }] }, (args) => ({
    messages: [{ role: "user", content: { type: "text", text: `hi ${args.who}` } }],
  }));
  return { server, probe };
}

export async function startTestServer(
  options: ServeHttpOptions = {},
): Promise<ServedHttp & { probe: Probe; mcp: McpServer }> {
  const { server, probe } = buildTestServer();
  const served = await serveHttp(server, options);
  return { ...served, probe, mcp: server };
}

export function meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientInfo": { name: "test", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra,
  };
}

export function request(
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta() } };
}

/** The headers a conforming client would send for `body`. */
export function mcpHeaders(body: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": VERSION,
    "Mcp-Method": String(body.method),
  };
  const params = (body.params ?? {}) as Record<string, unknown>;
  if (body.method === "tools/call" || body.method === "prompts/get") {
    headers["Mcp-Name"] = encodeHeaderValue(String(params.name));
  }
  if (body.method === "resources/read") headers["Mcp-Name"] = encodeHeaderValue(String(params.uri));
  return headers;
}

/**
 * POSTs `body` with conforming headers; `headers` overrides them (a null value removes one).
 */
export function post(
  url: string,
  body: Record<string, unknown> | string,
  headers: Record<string, string | null> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const base = typeof body === "string" ? mcpHeaders({}) : mcpHeaders(body);
  const merged = new Headers();
  for (const [name, value] of Object.entries(base)) merged.set(name, value);
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) merged.delete(name);
    else merged.set(name, value);
  }
  const init: RequestInit = {
    method: "POST",
    headers: merged,
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
  if (signal) init.signal = signal;
  return fetch(url, init);
}

export interface SseRead {
  messages: Wire[];
  comments: number;
}

/** Reads a whole SSE body: JSON messages of data events, and the count of comment lines. */
export async function readSse(response: Response): Promise<SseRead> {
  const text = await response.text();
  return parseSse(text);
}

export function parseSse(text: string): SseRead {
  const messages: Wire[] = [];
  let comments = 0;
  for (const block of text.split("\n\n")) {
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) comments++;
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
    }
    if (data.length > 0) messages.push(JSON.parse(data.join("\n")));
  }
  return { messages, comments };
}

/** Reads SSE messages one at a time as they arrive. */
export class SseMessages {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private queued: Wire[] = [];

  constructor(response: Response) {
    this.reader = response.body!.getReader();
  }

  /** The next message, or undefined when the stream ended. */
  async next(): Promise<Wire | undefined> {
    while (this.queued.length === 0) {
      const { done, value } = await this.reader.read();
      if (done) return undefined;
      this.buffer += this.decoder.decode(value, { stream: true });
      const end = this.buffer.lastIndexOf("\n\n");
      if (end === -1) continue;
      this.queued.push(...parseSse(this.buffer.slice(0, end + 2)).messages);
      this.buffer = this.buffer.slice(end + 2);
    }
    return this.queued.shift();
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}
