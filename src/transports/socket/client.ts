import { connect, type Socket } from "node:net";
import { LocalError } from "../../jsonrpc/errors.js";
import { SocketTransport, type SocketTransportOptions } from "./socket-transport.js";
import { formatSocketTarget, parseSocketTarget, type SocketTarget } from "./target.js";

export interface ConnectSocketOptions extends SocketTransportOptions {
  /** Aborting gives up on a connection still being made (no effect once connected). */
  signal?: AbortSignal;
  /** Gives up on a connection not made within this many milliseconds. */
  timeoutMs?: number;
}

/**
 * Connects to a TCP or Unix socket server speaking newline-delimited JSON-RPC. Resolves once the
 * connection is made; a refused, failed, timed out or aborted attempt rejects with a LocalError.
 */
export async function connectSocket(
  target: SocketTarget | string,
  options: ConnectSocketOptions = {},
): Promise<SocketTransport> {
  const where = typeof target === "string" ? parseSocketTarget(target) : target;
  const address = formatSocketTarget(where);
  if (where.kind === "tcp" && where.port === 0) {
    throw new Error(`cannot connect to ${address}: port 0 only makes sense when listening`);
  }
  const { signal, timeoutMs, maxMessageSize, flushTimeoutMs, lingerMs } = options;
  if (signal?.aborted) throw abortError(signal, address);

  const socket: Socket =
    where.kind === "tcp"
      ? connect({ host: where.host, port: where.port, allowHalfOpen: true, noDelay: true })
      : connect({ path: where.path, allowHalfOpen: true });

  return new Promise<SocketTransport>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (error?: Error): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      socket.off("connect", onConnect);
      socket.off("error", onError);
      if (error) {
        socket.destroy();
        reject(error);
      } else {
        const init = { maxMessageSize, flushTimeoutMs, lingerMs, peer: address };
        resolve(new SocketTransport(socket, init));
      }
    };
    const onConnect = (): void => settle();
    const onError = (error: Error): void =>
      settle(
        new LocalError("transport", `cannot connect to ${address}: ${error.message}`, {
          cause: error,
        }),
      );
    const onAbort = (): void => settle(abortError(signal!, address));

    socket.once("connect", onConnect);
    socket.once("error", onError);
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(
        () =>
          settle(
            new LocalError("timeout", `connecting to ${address} timed out after ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
    }
  });
}

/** AbortSignal.timeout() aborts with a TimeoutError; report that as a timeout, not a cancel. */
function abortError(signal: AbortSignal, address: string): LocalError {
  const reason: unknown = signal.reason;
  const timedOut = (reason as { name?: unknown } | undefined)?.name === "TimeoutError";
  return timedOut
    ? new LocalError("timeout", `connecting to ${address} timed out`, { cause: reason })
    : new LocalError("aborted", `connecting to ${address} was aborted`, { cause: reason });
}
