import type { JsonRpcId, JsonRpcMessage } from "../../../jsonrpc/types.js";
import type { HttpClientTransportOptions } from "./options.js";
import type { PostAnswer } from "./post-carrier.js";
import type { ReplySink } from "./reply-reader.js";
import type { RequestCancel } from "./request-cancel.js";

/** The parts of the transport the legacy and HTTP+SSE helpers use. */
export interface HttpCarrier {
  readonly url: URL;
  readonly options: HttpClientTransportOptions;
  /** The HTTP+SSE transport's requests: through fetch (the user's, or the global one). */
  fetch(url: URL, init: RequestInit): Promise<Response>;
  /**
   * A POST to the endpoint over the transport's carrier (node:http, or the user's fetch), with
   * the auth provider's headers and its 401/403 retry.
   */
  post(headers: Record<string, string>, body: string, cancel?: RequestCancel): Promise<PostAnswer>;
  /** A GET or DELETE to the endpoint, the same way. */
  request(
    method: "GET" | "DELETE",
    headers: Record<string, string>,
    cancel?: RequestCancel,
  ): Promise<PostAnswer>;
  baseHeaders(): Promise<Record<string, string>>;
  deliver(message: JsonRpcMessage): void;
  readonly sink: ReplySink;
  /** The sink for one request's answer stream: what else it carries is marked as related to it. */
  sinkFor(id: JsonRpcId): ReplySink;
  readonly isClosed: boolean;
  warn(message: string): void;
  /** The channel is gone for good (the HTTP+SSE stream ended). */
  fail(error: Error): void;
}
