/**
 * When a client has taken a whole SSE answer. Node's 'finish' only says the bytes went to the
 * operating system: a client whose connection broke (the server not knowing yet) never gets
 * them, and is exactly the one that resumes with Last-Event-ID. What does prove it is the
 * client's next request on the same keep-alive connection: an HTTP/1.1 client sends it once it
 * has read the response before (pipelining clients, which send without waiting, are the one
 * exception, and MCP clients do not pipeline). A connection that closes instead proves nothing.
 */
import type { Socket } from "node:net";

/** The answer last finished on a connection, waiting for the connection's next request. */
const AWAITING = Symbol("mcpwire.awaitingDelivery");

type Awaiting = Socket & { [AWAITING]?: (() => void) | undefined };

/** Calls `onDelivered` when `socket` carries its next request (never, if it closes first). */
export function onNextRequest(socket: Socket, onDelivered: () => void): void {
  (socket as Awaiting)[AWAITING] = onDelivered;
}

/** A request arrived on `socket`: the answer before it on that connection was delivered. */
export function requestArrived(socket: Socket | null): void {
  const awaiting = socket as Awaiting | null;
  const onDelivered = awaiting?.[AWAITING];
  if (!awaiting || onDelivered === undefined) return;
  awaiting[AWAITING] = undefined;
  onDelivered();
}
