import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/types.js";
import type {
  CloseInfo,
  SendOptions,
  Transport,
  TransportReceiver,
} from "../protocol/transport.js";
import { printableLine } from "../text/printable.js";

/**
 * Watches a stdio server's stdout until the handshake is done: the first line that is not
 * JSON-RPC (a banner, a log line, `npm` chatter) is reported at once through `onJunk`, instead of
 * the handshake waiting for a reply that will never come. Later junk is left to the client,
 * which logs it as a protocol error.
 */
export class StdoutJunkWatch implements Transport {
  private readonly inner: Transport;
  private readonly onJunk: (excerpt: string) => void;
  private watching = true;

  constructor(inner: Transport, onJunk: (excerpt: string) => void) {
    this.inner = inner;
    this.onJunk = onJunk;
  }

  get closed(): Promise<CloseInfo> {
    return this.inner.closed;
  }

  /** The handshake is over: junk from now on is the client's business. */
  stopWatching(): void {
    this.watching = false;
  }

  start(receiver: TransportReceiver): void {
    this.inner.start({
      ...receiver,
      message: (message, context) => receiver.message(message, context),
      frameError: (error) => {
        if (this.watching && error.kind === "invalid" && error.failure.error.code === -32700) {
          this.watching = false;
          this.onJunk(error.excerpt ?? "");
        }
        receiver.frameError?.(error);
      },
    });
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  cancel(requestId: JsonRpcId, reason?: string): boolean {
    return this.inner.cancel?.(requestId, reason) ?? false;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export function junkMessage(excerpt: string): string {
  return (
    `the server wrote something that is not JSON-RPC to stdout: "${printableLine(excerpt)}"; ` +
    "a stdio server may write only MCP messages there (its logs belong on stderr)"
  );
}

/** The system error code (ECONNREFUSED…) somewhere in an error's cause chain, if any. */
export function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
    if (current instanceof AggregateError && current.errors.length > 0) current = current.errors[0];
    else current = current.cause;
  }
  return undefined;
}

/** A plain sentence for the network failures a user can act on. */
export function networkFailure(code: string | undefined, where: string): string | undefined {
  switch (code) {
    case "ECONNREFUSED":
      return `nothing is listening at ${where} (connection refused): is the server running, on that port?`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot resolve the host of ${where} (${code})`;
    case "ENOENT":
      return `nothing is listening at ${where} (no such socket file)`;
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `cannot reach ${where} (${code})`;
    default:
      return undefined;
  }
}
