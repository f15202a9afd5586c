/**
 * Reads the body of a 2xx answer to a POSTed request: one JSON message (or, from 2025 servers,
 * a batch) or an SSE stream of notifications, server requests and finally the reply.
 */

import { classify, parseMessage } from "../../../jsonrpc/classify.js";
import { LocalError } from "../../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from "../../../jsonrpc/types.js";
import { readSse, type SseHandlers } from "./sse-reader.js";

/** Where a stream got to: enough to resume a legacy stream with `Last-Event-ID`. */
export interface StreamPosition {
  lastEventId?: string;
  retryMs?: number;
}

export interface ReplySink {
  /** Every message other than the awaited reply. */
  message(message: JsonRpcMessage): void;
  /** A frame that is not a JSON-RPC message. */
  invalid(detail: string): void;
}

function isReplyTo(message: JsonRpcMessage, id: JsonRpcId): message is JsonRpcResponse {
  return !("method" in message) && message.id === id;
}

/** The reply to `id` in the text of a JSON body; every other message goes to the sink. */
export function jsonReplyIn(
  text: string,
  id: JsonRpcId,
  sink: ReplySink,
): JsonRpcResponse | undefined {
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch {
    sink.invalid(`response body is not JSON: ${text.slice(0, 200)}`);
    return undefined;
  }
  // Parsed once: each value is classified as it is, never re-serialised.
  let reply: JsonRpcResponse | undefined;
  for (const value of Array.isArray(values) ? values : [values]) {
    const classified = classify(value);
    if (!classified.ok) sink.invalid(classified.error.message);
    else if (!reply && isReplyTo(classified.message, id)) reply = classified.message;
    else sink.message(classified.message);
  }
  return reply;
}

/**
 * Reads an SSE body until the reply to `id` arrives (then stops reading) or the stream ends.
 * Returns the reply, or undefined when the stream ended first; `position` is kept up to date.
 * Rejects when the body breaks (network error, abort).
 */
export async function readSseReply(
  body: ReadableStream<Uint8Array>,
  id: JsonRpcId | undefined,
  sink: ReplySink,
  position: StreamPosition,
): Promise<JsonRpcResponse | undefined> {
  const collector = sseReplyCollector(id, sink, position);
  await readSse(body, collector.handlers);
  return collector.reply();
}

/**
 * The SSE handlers that pick the reply to `id` out of a request's stream (whoever feeds them):
 * other messages go to the sink, `done()` turns true once the reply is in.
 */
export function sseReplyCollector(
  id: JsonRpcId | undefined,
  sink: ReplySink,
  position: StreamPosition,
): { handlers: SseHandlers; reply(): JsonRpcResponse | undefined } {
  let reply: JsonRpcResponse | undefined;
  const handlers: SseHandlers = {
    event: (event) => {
      if (event.event !== undefined && event.event !== "message") return;
      // Priming events carry an id and no data.
      if (event.data.trim() === "") return;
      const parsed = parseMessage(event.data);
      if (!parsed.ok) sink.invalid(parsed.error.message);
      else if (id !== undefined && !reply && isReplyTo(parsed.message, id)) reply = parsed.message;
      else sink.message(parsed.message);
    },
    id: (eventId) => {
      position.lastEventId = eventId;
    },
    retry: (ms) => {
      position.retryMs = ms;
    },
    done: () => reply !== undefined,
  };
  return { handlers, reply: () => reply };
}

/** A request's stream failed before its reply: a local failure, never a peer error. */
export function brokenStream(method: string, cause?: unknown): LocalError {
  const detail = cause instanceof Error ? `: ${cause.message}` : "";
  return new LocalError("transport", `${method}: the response ended before the reply${detail}`, {
    cause,
  });
}
