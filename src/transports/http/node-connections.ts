/**
 * Connections that never send a request (issue 32.B3): node:http's headersTimeout starts only
 * with a request's first byte, so a connection that sends nothing stayed open for good, and a
 * flood of them used up the process's file descriptors. serveHttp closes such a connection
 * after firstRequestTimeoutMs; from its first request on, node's own timeouts apply.
 */
import type { Socket } from "node:net";

const AWAITING_FIRST_REQUEST = Symbol("mcpwire.awaitingFirstRequest");

type Watched = Socket & { [AWAITING_FIRST_REQUEST]?: boolean };

/**
 * Closes `socket` unless a request arrives within `ms` of silence (node:http's own timeout
 * handler destroys a socket whose timer fires with no request or response on it).
 */
export function awaitFirstRequest(socket: Socket, ms: number): void {
  (socket as Watched)[AWAITING_FIRST_REQUEST] = true;
  socket.setTimeout(ms);
}

/** A request arrived: a socket still waiting for its first one keeps no timer of ours. */
export function firstRequestArrived(socket: Socket | null): void {
  const watched = socket as Watched | null;
  if (!watched?.[AWAITING_FIRST_REQUEST]) return;
  watched[AWAITING_FIRST_REQUEST] = false;
  watched.setTimeout(0);
}
