/**
 * A scripted MCP server for client tests: it speaks raw JSON-RPC on one end of an in-memory
 * pair, answers each method as a test tells it to, and records everything it receives, so tests
 * assert what actually went over the wire.
 */
import type {
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../../src/jsonrpc/types.js";
import type { Transport } from "../../src/protocol/transport.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import { until } from "../helpers/poll.js";

/** What to do with a request: reply, stay silent, or hang up. */
export type Reply = { result: JsonObject } | { error: JsonRpcErrorObject } | "silence" | "close";

export type Script = (request: JsonRpcRequest, server: FakeServer) => Reply | Promise<Reply>;

export const SERVER_INFO = { name: "fake-server", version: "1.0.0" };

export function discoverResult(extra: JsonObject = {}): { result: JsonObject } {
  return {
    result: {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: { listChanged: true }, resources: { subscribe: false } },
      instructions: "be nice",
      _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
      ...extra,
    },
  };
}

export function initializeResult(protocolVersion = "2025-11-25"): { result: JsonObject } {
  return {
    result: {
      protocolVersion,
      capabilities: { tools: {}, logging: {}, resources: { subscribe: true } },
      serverInfo: SERVER_INFO,
      instructions: "legacy instructions",
    },
  };
}

export function errorReply(code: number, message: string, data?: unknown): Reply {
  return { error: data === undefined ? { code, message } : { code, message, data } };
}

export class FakeServer {
  readonly transport: Transport;
  readonly received: JsonRpcMessage[] = [];
  private readonly scripts = new Map<string, Script>();
  private readonly waiting = new Map<JsonRpcId, (response: JsonRpcResponse) => void>();
  private nextId = 1;

  constructor(transport: Transport) {
    this.transport = transport;
    transport.start({
      message: (message) => this.onMessage(message),
      ended: () => void transport.close(),
    });
  }

  /** How to answer `method`. Unscripted methods get -32601. */
  on(method: string, script: Script | Reply): this {
    this.scripts.set(method, typeof script === "function" ? script : () => script);
    return this;
  }

  /** Requests received for `method`, in order. */
  requests(method?: string): JsonRpcRequest[] {
    return this.received.filter(
      (message): message is JsonRpcRequest =>
        "method" in message &&
        "id" in message &&
        (method === undefined || message.method === method),
    );
  }

  /** Methods of every request and notification received, in order. */
  methods(): string[] {
    return this.received.flatMap((message) => ("method" in message ? [message.method] : []));
  }

  /** Waits until a message with `method` has arrived (deliveries are asynchronous). */
  waitFor(method: string): Promise<void> {
    return until(() => this.methods().includes(method), `${method} at the fake server`);
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.transport.send(
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
    );
  }

  /** A server-to-client request; resolves with the client's response. */
  async request(method: string, params?: JsonObject): Promise<JsonRpcResponse> {
    const id = `server-${this.nextId++}`;
    const response = new Promise<JsonRpcResponse>((resolve) => this.waiting.set(id, resolve));
    await this.transport.send(
      params === undefined
        ? { jsonrpc: "2.0", id, method }
        : { jsonrpc: "2.0", id, method, params },
    );
    return response;
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private onMessage(message: JsonRpcMessage): void {
    this.received.push(message);
    if (!("method" in message)) {
      if (message.id !== null) this.waiting.get(message.id)?.(message);
      return;
    }
    if (!("id" in message)) return;
    void this.answer(message);
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    const script = this.scripts.get(request.method);
    const reply: Reply = script
      ? await script(request, this)
      : { error: { code: -32601, message: `Method not found: ${request.method}` } };
    if (reply === "silence") return;
    if (reply === "close") {
      await this.transport.close();
      return;
    }
    await this.transport
      .send({ jsonrpc: "2.0", id: request.id, ...reply } as JsonRpcResponse)
      .catch(() => {});
  }
}

/** A client-side transport and the fake server on the other end. */
export function fakePair(): { transport: Transport; server: FakeServer } {
  const [clientEnd, serverEnd] = createMemoryPair();
  return { transport: clientEnd, server: new FakeServer(serverEnd) };
}

/** The `_meta` of a request's params. */
export function metaOf(request: JsonRpcRequest | undefined): JsonObject {
  return (request?.params?._meta as JsonObject | undefined) ?? {};
}
