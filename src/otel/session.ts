/**
 * The two session-duration histograms. The middleware sees messages, not connections, so a
 * session's start is read off the messages and its end off the channel's close:
 *
 * - `mcp.client.session.duration`: a client's connection, from the call (made once connected)
 *   to its close from either side;
 * - `mcp.server.session.duration`: a legacy session from its `initialize` to its end, and a
 *   modern connection over a stream (stdio, a socket) from its first message to its close.
 *   Modern requests over HTTP stand alone: there is no session to time.
 */
import type { Attributes } from "@opentelemetry/api";
import type { McpClient } from "../client/index.js";
import { LocalError } from "../jsonrpc/errors.js";
import type { CloseInfo, TransportKind } from "../protocol/transport.js";
import type { ServerMiddlewareContext } from "../server/middleware-chain.js";
import { ATTR, ERROR_TYPE } from "./conventions.js";
import { instruments } from "./instruments.js";

/** Records the connected `client`'s session duration when its connection closes. */
export function recordClientSession(client: McpClient): void {
  const started = performance.now();
  // Read now: a closed client no longer knows its version.
  const attributes: Attributes = {};
  if (client.protocolVersion !== undefined) {
    attributes[ATTR.protocolVersion] = client.protocolVersion;
  }
  void client.closed.then(() => {
    instruments().clientSession?.record((performance.now() - started) / 1000, attributes);
  });
}

/** Transports whose one channel is one client's connection (HTTP's is the whole endpoint's). */
const STREAM_KINDS: ReadonlySet<TransportKind | undefined> = new Set([
  "stdio",
  "socket",
  "stream",
  "memory",
]);

/** Notices sessions starting in the messages a server middleware sees; times each to its end. */
export class ServerSessions {
  private readonly timed = new WeakSet<Promise<CloseInfo>>();

  /** Whether `ctx`'s message starts a session not timed yet (and anything would record it). */
  starts(ctx: ServerMiddlewareContext): boolean {
    const starts =
      ctx.method === "initialize" || (ctx.era === "modern" && STREAM_KINDS.has(ctx.transport));
    return (
      starts && !this.timed.has(ctx.channelClosed) && instruments().serverSession !== undefined
    );
  }

  /** Records the session from `startedAt` (performance.now()) to its channel's close. */
  time(ctx: ServerMiddlewareContext, startedAt: number, attributes: Attributes): void {
    const closed = ctx.channelClosed;
    if (this.timed.has(closed)) return;
    this.timed.add(closed);
    void closed.then((info) => {
      const recorded =
        info.error === undefined
          ? attributes
          : { ...attributes, [ATTR.errorType]: errorType(info.error) };
      instruments().serverSession?.record((performance.now() - startedAt) / 1000, recorded);
    });
  }
}

function errorType(error: Error): string {
  return error instanceof LocalError ? error.kind : ERROR_TYPE.other;
}
