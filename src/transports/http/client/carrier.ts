import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from "../../../jsonrpc/types.js";
import type { HttpClientTransportOptions } from "./options.js";
import type { ReplySink } from "./reply-reader.js";

/** The parts of the transport the legacy and HTTP+SSE helpers use. */
export interface HttpCarrier {
  readonly url: URL;
  readonly options: HttpClientTransportOptions;
  fetch(url: URL, init: RequestInit): Promise<Response>;
  baseHeaders(): Promise<Record<string, string>>;
  deliver(message: JsonRpcMessage): void;
  readonly sink: ReplySink;
  readonly isClosed: boolean;
  warn(message: string): void;
  /** The channel is gone for good (the HTTP+SSE stream ended). */
  fail(error: Error): void;
  failureReply(request: JsonRpcRequest, response: Response): Promise<JsonRpcResponse>;
  readReply(
    request: JsonRpcRequest,
    response: Response,
    signal: AbortSignal,
  ): Promise<JsonRpcResponse | undefined>;
}
