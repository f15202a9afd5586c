/**
 * A request handed to the gateway instance that holds its call or task (gateway-cluster.ts):
 * POSTed to that instance's endpoint as the client sent it (the same Authorization, so the
 * owner checks the caller itself; the same Host and Origin, so its checks pass as they did
 * here), and its answer, a JSON body or an SSE stream, read back as the reply. The caller's
 * abort ends the POST, which the owner takes as cancellation.
 */
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { ErrorCode, isPlainObject, JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonObject, JsonRpcResponse } from "../../jsonrpc/types.js";
import { HEADER } from "../../protocol/http-headers.js";
import { standardHeaders } from "../../transports/http/client/mcp-headers-out.js";
import { nodeClientFor } from "../../transports/http/client/node-carrier.js";
import { jsonReplyIn, readSseReply } from "../../transports/http/client/reply-reader.js";

/** Marks a forwarded request: its receiver serves it itself, never forwards it again. */
export const FORWARDED_HEADER = "mcpwire-forwarded";

/** Headers of the client's request that go on with it as they came. */
const PASSED_HEADERS = [
  "authorization",
  "dpop",
  "host",
  "origin",
  "traceparent",
  "tracestate",
  "baggage",
  HEADER.protocolVersion,
  HEADER.sessionId,
];

/** Largest answer body read back (the owner's own limits apply to what it sends). */
const MAX_ANSWER_CHARS = 64 * 1024 * 1024;

export interface ForwardedRequest {
  method: string;
  params: JsonObject;
  id: string | number;
  /** A header of the client's request (undefined when absent). */
  header(name: string): string | undefined;
  /** Mcp-Param-* headers the request carries, worked out from the tool's schema. */
  paramHeaders: Record<string, string>;
  signal: AbortSignal;
  /** Who forwards (this instance's advertised URL), for the owner's log. */
  from: string;
}

/**
 * The instance holding the request could not be asked (gone, unreachable, a broken answer).
 * Its message is the client's and names no address; `detail` is the operator's.
 */
export class PeerUnreachableError extends JsonRpcError {
  readonly detail: string;
  constructor(detail: string) {
    super(
      ErrorCode.InternalError,
      "the gateway instance holding this call or task cannot be reached; start it again",
    );
    this.detail = detail;
  }
}

/** The owner's reply: its result, or its error thrown as the same JsonRpcError. */
export async function forwardToPeer(url: URL, request: ForwardedRequest): Promise<JsonObject> {
  const message = { jsonrpc: "2.0" as const, id: request.id, method: request.method };
  const body = JSON.stringify({ ...message, params: request.params });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...standardHeaders({ ...message, params: request.params }),
    ...request.paramHeaders,
    [FORWARDED_HEADER]: request.from,
  };
  for (const name of PASSED_HEADERS) {
    const value = request.header(name);
    if (value !== undefined) headers[name] = value;
  }
  const answer = await post(url, headers, body, request.signal);
  const reply = await readReply(answer, request.id);
  if (reply === undefined) {
    throw new PeerUnreachableError(`${url.origin} ended its answer without a reply`);
  }
  if ("error" in reply) {
    throw new JsonRpcError(reply.error.code, reply.error.message, reply.error.data);
  }
  return reply.result as JsonObject;
}

function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const { request } = nodeClientFor(url);
    const outgoing = request(url, { method: "POST", headers, signal }, resolve);
    outgoing.on("error", (error) =>
      reject(signal.aborted ? error : new PeerUnreachableError(`${url.origin}: ${error.message}`)),
    );
    outgoing.end(body);
  });
}

/** The reply in a JSON body or an SSE stream; an HTTP error as the JSON-RPC error it carries. */
async function readReply(
  answer: IncomingMessage,
  id: string | number,
): Promise<JsonRpcResponse | undefined> {
  const type = answer.headers["content-type"] ?? "";
  // What else the owner sends on the way (progress, logs) is not relayed: see gateway-cluster.ts.
  const sink = { message: () => {}, invalid: () => {} };
  const status = answer.statusCode ?? 0;
  if (status >= 200 && status < 300 && type.startsWith("text/event-stream")) {
    return readSseReply(Readable.toWeb(answer) as ReadableStream<Uint8Array>, id, sink, {});
  }
  const text = await bodyText(answer);
  if (status >= 200 && status < 300) return jsonReplyIn(text, id, sink);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isPlainObject(parsed) && isPlainObject(parsed.error)) {
    const { code, message, data } = parsed.error as {
      code: unknown;
      message: unknown;
      data?: unknown;
    };
    if (typeof code === "number" && typeof message === "string") {
      throw new JsonRpcError(code, message, data);
    }
  }
  throw new PeerUnreachableError(`answered HTTP ${status} without a JSON-RPC error`);
}

async function bodyText(answer: IncomingMessage): Promise<string> {
  answer.setEncoding("utf8");
  let text = "";
  for await (const chunk of answer) {
    text += chunk as string;
    if (text.length > MAX_ANSWER_CHARS) {
      answer.destroy();
      throw new PeerUnreachableError(`its answer exceeded ${MAX_ANSWER_CHARS} characters`);
    }
  }
  return text;
}
