/**
 * What a POST's answer means, whichever carrier brought it (node:http or fetch): a non-2xx
 * status with or without a JSON-RPC error, or a 2xx body holding the reply as JSON or SSE.
 */
import { LocalError } from "../../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcRequest, JsonRpcResponse } from "../../../jsonrpc/types.js";
import { errorResponseIn, HttpStatusError } from "./era.js";
import type { PostAnswer } from "./post-carrier.js";
import {
  jsonReplyIn,
  type ReplySink,
  type StreamPosition,
  sseReplyCollector,
} from "./reply-reader.js";

/**
 * A non-2xx answer. A JSON-RPC error body (except with 401/403, never an era signal) is the
 * server's reply to this request; anything else rejects as an HttpStatusError (era.ts).
 */
export async function failureReplyIn(
  request: JsonRpcRequest,
  answer: PostAnswer,
): Promise<JsonRpcResponse> {
  const text = await answer.text().catch(() => "");
  const error = errorResponseIn(text);
  if (error && answer.status !== 401 && answer.status !== 403) {
    return { ...error, id: request.id };
  }
  throw new HttpStatusError(answer.status, text, answer.headers(), request.method);
}

/**
 * The reply in a 2xx body (JSON or SSE), or undefined when none came; every other message in
 * it goes to the sink. A body of any other type is no reply: a local failure (or the
 * cancellation's reason, when it was cancelled).
 */
export async function replyIn(
  request: JsonRpcRequest,
  answer: PostAnswer,
  sink: ReplySink,
  cancelled: { readonly aborted: boolean; readonly reason: unknown },
): Promise<JsonRpcResponse | undefined> {
  const type = answer.contentType;
  if (type.includes("text/event-stream")) return sseReplyIn(answer, request.id, sink, {});
  if (type.includes("application/json")) return jsonReplyIn(await answer.text(), request.id, sink);
  answer.discard();
  if (cancelled.aborted) throw cancelled.reason;
  throw new NotAReplyError(request.method, answer.status, type);
}

/** A 2xx answer that is neither JSON nor SSE (a web page where an MCP endpoint was expected). */
export class NotAReplyError extends LocalError {
  override name = "NotAReplyError";
  readonly status: number;
  readonly contentType: string;

  constructor(method: string, status: number, contentType: string) {
    super(
      "transport",
      `${method}: HTTP ${status} with ${contentType ? `content type ${contentType}` : "no body"} is no reply`,
    );
    this.status = status;
    this.contentType = contentType;
  }
}

/**
 * Reads an SSE answer until the reply to `id` arrives or the stream ends (then undefined);
 * `position` follows the event ids and `retry` for a legacy resumption.
 */
export async function sseReplyIn(
  answer: PostAnswer,
  id: JsonRpcId | undefined,
  sink: ReplySink,
  position: StreamPosition,
): Promise<JsonRpcResponse | undefined> {
  const collector = sseReplyCollector(id, sink, position);
  await answer.sse(collector.handlers);
  return collector.reply();
}
