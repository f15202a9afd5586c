/**
 * Shared pieces of the legacy Streamable HTTP tests: a server with tools that elicit and wait
 * on a gate, a raw session client (initialize, POST, GET, DELETE), and an SSE event reader that
 * keeps event ids and retry fields.
 */
import type { McpServer } from "../../../src/server/index.js";
import type { ServeHttpOptions } from "../../../src/transports/http/node-adapter.js";
import { serveHttp } from "../../../src/transports/http/node-adapter.js";
import { buildTestServer, type Wire } from "./http-helpers.js";

export const LEGACY_VERSION = "2025-11-25";

export interface Gate {
  /** Resolves when the "gated" tool is waiting. */
  waiting: Promise<void>;
  release(): void;
}

function newGate(): Gate & { wait(): Promise<void>; arrived(): void } {
  let release!: () => void;
  let arrived!: () => void;
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  const waiting = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  return { waiting, release, arrived, wait: () => opened };
}

/** "ask": elicits a name and returns the answer as JSON. */
export function addAskTool(server: McpServer): void {
  server.tool({ name: "ask", inputSchema: { type: "object" } }, async (_args, context) => {
    const answer = await context.elicit({
      message: "Your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    return JSON.stringify(answer);
  });
}

export async function startLegacyServer(options: ServeHttpOptions = {}) {
  const { server, probe } = buildTestServer();
  let gate = newGate();
  addAskTool(server);
  server.tool({ name: "gated", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.progress(1, 2, "waiting");
    gate.arrived();
    await gate.wait();
    await context.progress(2, 2, "released");
    return "released";
  });
  const served = await serveHttp(server, options);
  return {
    ...served,
    mcp: server,
    probe,
    /** A fresh gate for the next "gated" call. */
    gate(): Gate {
      gate = newGate();
      return gate;
    },
  };
}

export type LegacyServed = Awaited<ReturnType<typeof startLegacyServer>>;

export function initializeBody(version = LEGACY_VERSION, id: number | string = 0) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: { elicitation: {}, sampling: {} },
      clientInfo: { name: "raw-legacy", version: "0" },
    },
  };
}

const BASE_HEADERS = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
};

/** A hand-driven legacy session: exactly the HTTP a 2025-11-25 client sends. */
export class RawSession {
  readonly url: string;
  sessionId: string | undefined;
  version: string;

  constructor(url: string, version = LEGACY_VERSION) {
    this.url = url;
    this.version = version;
  }

  /** initialize + notifications/initialized; returns the initialize result. */
  async open(): Promise<Wire> {
    const response = await fetch(this.url, {
      method: "POST",
      headers: BASE_HEADERS,
      body: JSON.stringify(initializeBody(this.version)),
    });
    if (response.status !== 200) throw new Error(`initialize: HTTP ${response.status}`);
    this.sessionId = response.headers.get("mcp-session-id") ?? undefined;
    const body = await response.json();
    const ack = await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    if (ack.status !== 202) throw new Error(`initialized: HTTP ${ack.status}`);
    return body;
  }

  headers(extra: Record<string, string | null> = {}): Headers {
    const headers = new Headers(BASE_HEADERS);
    if (this.sessionId) headers.set("Mcp-Session-Id", this.sessionId);
    headers.set("MCP-Protocol-Version", this.version);
    for (const [name, value] of Object.entries(extra)) {
      if (value === null) headers.delete(name);
      else headers.set(name, value);
    }
    return headers;
  }

  post(body: unknown, extra: Record<string, string | null> = {}): Promise<Response> {
    return fetch(this.url, {
      method: "POST",
      headers: this.headers(extra),
      body: JSON.stringify(body),
    });
  }

  get(lastEventId?: string, extra: Record<string, string | null> = {}): Promise<Response> {
    const headers = this.headers({ Accept: "text/event-stream", "Content-Type": null, ...extra });
    if (lastEventId !== undefined) headers.set("Last-Event-ID", lastEventId);
    return fetch(this.url, { method: "GET", headers });
  }

  delete(): Promise<Response> {
    return fetch(this.url, { method: "DELETE", headers: this.headers() });
  }
}

export function call(
  name: string,
  args: Record<string, unknown> = {},
  id: number | string = 1,
  token?: string,
) {
  const params: Record<string, unknown> = { name, arguments: args };
  if (token !== undefined) params._meta = { progressToken: token };
  return { jsonrpc: "2.0", id, method: "tools/call", params };
}

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
  retry: number | undefined;
  /** The JSON-RPC message of a data event; undefined for priming events. */
  message: Wire;
}

/** Reads SSE events one at a time as they arrive, ids and retry fields included. */
export class SseEvents {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private readonly queued: SseEvent[] = [];

  constructor(response: Response) {
    if (!response.body) throw new Error("no body");
    this.reader = response.body.getReader();
  }

  /** The next event, or undefined when the stream ended. */
  async next(): Promise<SseEvent | undefined> {
    while (this.queued.length === 0) {
      const { done, value } = await this.reader.read();
      if (done) return undefined;
      this.buffer += this.decoder.decode(value, { stream: true });
      for (;;) {
        const end = this.buffer.indexOf("\n\n");
        if (end === -1) break;
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const event = parseBlock(block);
        if (event) this.queued.push(event);
      }
    }
    return this.queued.shift();
  }

  /** Every remaining event until the stream ends. */
  async rest(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.next(); event; event = await this.next()) events.push(event);
    return events;
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let id: string | undefined;
  let event: string | undefined;
  let retry: number | undefined;
  const data: string[] = [];
  let fields = 0;
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    fields++;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "id") id = value;
    else if (name === "event") event = value;
    else if (name === "retry") retry = Number(value);
    else if (name === "data") data.push(value);
  }
  if (fields === 0) return undefined; // a keep-alive comment
  const text = data.join("\n");
  // Only `message` events carry JSON-RPC (HTTP+SSE's `endpoint` event carries a URL).
  const isMessage = event === undefined || event === "message";
  return {
    id,
    event,
    data: text,
    retry,
    message: text && isMessage ? JSON.parse(text) : undefined,
  };
}
