/**
 * A legacy session POST's answer on the node:http fast path: the JSON reply with one writeHead
 * and end, or the resumable SSE stream written straight to the ServerResponse. Event ids,
 * the event store and resumption are the ResumableStream's, as on the web path.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonRpcResponse } from "../../jsonrpc/types.js";
import { type EventSink, jsonReply, sseHeaders } from "./exchange.js";
import type { PostTarget } from "./legacy/stream-target.js";
import { NodeEventStream } from "./node-event-stream.js";
import { flatHeaders, writePlain } from "./node-response.js";
import type { HeaderPairs } from "./security.js";

export class NodePostTarget implements PostTarget {
  private readonly req: IncomingMessage;
  private readonly res: ServerResponse;
  /** This response's headers: CORS and Mcp-Session-Id. */
  private readonly headers: HeaderPairs;

  constructor(req: IncomingMessage, res: ServerResponse, headers: HeaderPairs) {
    this.req = req;
    this.res = res;
    this.headers = headers;
  }

  whole(status: number, message?: JsonRpcResponse): void {
    const reply = message
      ? jsonReply(message, status, this.headers)
      : { status, headers: this.headers, body: null };
    writePlain(this.req, this.res, reply);
  }

  stream(keepAliveMs: number, onGone: () => void): EventSink {
    const { res } = this;
    if (!res.destroyed) res.writeHead(200, flatHeaders(sseHeaders(this.headers)));
    const stream = new NodeEventStream(res, keepAliveMs);
    // A client that leaves ends this connection (its keep-alive timer too), not the stream:
    // that waits for a resume. After a normal end, 'close' finds nothing left to do.
    const gone = () => {
      stream.end();
      onGone();
    };
    if (res.destroyed) queueMicrotask(gone);
    else res.on("close", gone);
    return stream;
  }
}
