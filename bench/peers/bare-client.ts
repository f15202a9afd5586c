/**
 * The bare Node clients (the limit row, and the neutral peer for "each side alone"): spawn or
 * connect, write JSON-RPC with JSON.stringify, read replies with JSON.parse, correlate ids.
 * Modern requests carry the per-request `_meta` a 2026-07-28 server requires; modern HTTP requests
 * carry the mirrored headers.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request as httpRequest } from "node:http";
import { LEGACY, MODERN, PROTOCOL_VERSION_KEY, type Untyped } from "./bare-protocol.js";
import { type BenchClient, type Era, type ServerCommand, serverEnv } from "./types.js";

const CLIENT_META = {
  [PROTOCOL_VERSION_KEY]: MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "bare-bench-client", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

type Pending = { resolve: (value: Untyped) => void; reject: (error: Error) => void };

function paramsFor(era: Era, params: Record<string, unknown>): Record<string, unknown> {
  return era === "modern" ? { ...params, _meta: CLIENT_META } : params;
}

function unwrap(reply: Untyped): Untyped {
  if (reply.error) throw new Error(`server error ${reply.error.code}: ${reply.error.message}`);
  return reply.result;
}

export async function bareStdioClient(server: ServerCommand, era: Era): Promise<BenchClient> {
  const child: ChildProcess = spawn(server.command, server.args, {
    stdio: ["pipe", "pipe", "inherit"],
    env: serverEnv(),
  });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let buffered: Buffer[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", (code, signal) => {
    for (const waiter of pending.values())
      waiter.reject(new Error(`server exited (${code ?? signal})`));
    pending.clear();
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      buffered.push(chunk.subarray(start, newline));
      const line = Buffer.concat(buffered).toString("utf8");
      buffered = [];
      start = newline + 1;
      if (line.trim() === "") continue;
      const message = JSON.parse(line);
      const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
      if (!waiter) continue; // notifications and server requests are not part of this workload
      pending.delete(message.id);
      waiter.resolve(message);
    }
    if (start < chunk.length) buffered.push(chunk.subarray(start));
  });
  const request = (method: string, params: Record<string, unknown>): Promise<Untyped> => {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.stdin!.write(
        `${JSON.stringify({ jsonrpc: "2.0", id, method, params: paramsFor(era, params) })}\n`,
      );
    }).then(unwrap);
  };
  if (era === "legacy") {
    await request("initialize", {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: "bare-bench-client", version: "1.0.0" },
    });
    child.stdin!.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
    );
  }
  return {
    serverPid: () => child.pid,
    echo: async (text) =>
      (await request("tools/call", { name: "echo", arguments: { text } })).content?.[0]?.text,
    listTools: async () => (await request("tools/list", {})).tools.length,
    close: async () => {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One parsed JSON-RPC reply from a JSON or SSE body. */
function replyFromBody(contentType: string, body: string): Untyped {
  if (!contentType.includes("text/event-stream")) return JSON.parse(body);
  for (const event of body.split("\n\n")) {
    const data = event
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (data === "") continue;
    const message = JSON.parse(data);
    if (message.id !== undefined && (message.result !== undefined || message.error !== undefined))
      return message;
  }
  throw new Error("SSE reply without a response");
}

export interface BareHttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  message: Untyped;
}

/** A bare node:http client with a keep-alive pool sized to the concurrency. */
export function bareHttpPoster(url: string, maxSockets: number) {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets });
  let nextId = 1;
  /** One POST of a JSON-RPC body; resolves with the status, headers and body text. */
  const send = (
    body: string,
    extraHeaders: Record<string, string | number>,
  ): Promise<{ status: number; headers: BareHttpReply["headers"]; text: string }> =>
    new Promise((resolve, reject) => {
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": Buffer.byteLength(body),
        ...extraHeaders,
      };
      const req = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          agent,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  const post = async (
    method: string,
    params: Record<string, unknown>,
    era: Era,
    extraHeaders: Record<string, string> = {},
  ): Promise<BareHttpReply> => {
    const id = nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, params: paramsFor(era, params) });
    const headers: Record<string, string> = { ...extraHeaders };
    if (era === "modern") {
      headers["mcp-protocol-version"] = MODERN;
      headers["mcp-method"] = method;
      if (method === "tools/call") headers["mcp-name"] = String(params.name);
    }
    const { status, headers: replyHeaders, text } = await send(body, headers);
    const message =
      status === 200 ? replyFromBody(String(replyHeaders["content-type"] ?? ""), text) : undefined;
    return { status, headers: replyHeaders, message };
  };
  /** A legacy notification; resolves with the HTTP status (202 expected). */
  const notify = async (method: string, extraHeaders: Record<string, string>): Promise<number> =>
    (await send(JSON.stringify({ jsonrpc: "2.0", method }), extraHeaders)).status;
  return { post, notify, close: () => agent.destroy() };
}

export function bareHttpClient(
  url: string,
  maxSockets: number,
  extraHeaders: Record<string, string> = {},
): BenchClient {
  const poster = bareHttpPoster(url, maxSockets);
  const call = async (method: string, params: Record<string, unknown>) => {
    const reply = await poster.post(method, params, "modern", extraHeaders);
    if (reply.status !== 200) throw new Error(`HTTP ${reply.status} for ${method}`);
    return unwrap(reply.message);
  };
  return echoClient(call, () => poster.close());
}

/**
 * A bare legacy Streamable HTTP client for throughput: initialize, then tools/call with
 * Mcp-Session-Id. `sessions`: "per-caller" opens one session per concurrent caller (as many
 * sessions as callers, one request in flight on each); "one" sends every call on a single
 * session (all callers' requests in flight on it at once).
 */
export function bareLegacyHttpClient(
  url: string,
  concurrency: number,
  sessions: "per-caller" | "one" = "per-caller",
): BenchClient {
  const poster = bareHttpPoster(url, concurrency);
  const idle: string[] = [];
  let shared: Promise<string> | undefined;
  const open = async (): Promise<string> => {
    const params = {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: "bare-bench-legacy", version: "1.0.0" },
    };
    const reply = await poster.post("initialize", params, "legacy");
    const id = reply.headers["mcp-session-id"];
    if (reply.status !== 200 || typeof id !== "string") {
      throw new Error(`initialize failed: HTTP ${reply.status}`);
    }
    const initialized = await poster.notify("notifications/initialized", {
      "mcp-session-id": id,
      "mcp-protocol-version": LEGACY,
    });
    if (initialized !== 202) throw new Error(`notifications/initialized: HTTP ${initialized}`);
    return id;
  };
  const take = (): Promise<string> => {
    if (sessions === "one") {
      shared ??= open();
      return shared;
    }
    const session = idle.pop();
    return session === undefined ? open() : Promise.resolve(session);
  };
  const call = async (method: string, params: Record<string, unknown>) => {
    const session = await take();
    try {
      const reply = await poster.post(method, params, "legacy", {
        "mcp-session-id": session,
        "mcp-protocol-version": LEGACY,
      });
      if (reply.status !== 200) throw new Error(`HTTP ${reply.status} for ${method}`);
      return unwrap(reply.message);
    } finally {
      if (sessions === "per-caller") idle.push(session);
    }
  };
  return echoClient(call, () => poster.close());
}

/** The BenchClient over one `call(method, params)` (an HTTP one: no server pid). */
function echoClient(
  call: (method: string, params: Record<string, unknown>) => Promise<Untyped>,
  close: () => void,
): BenchClient {
  return {
    serverPid: () => undefined,
    echo: async (text) =>
      (await call("tools/call", { name: "echo", arguments: { text } })).content?.[0]?.text,
    listTools: async () => (await call("tools/list", {})).tools.length,
    close: async () => close(),
  };
}
