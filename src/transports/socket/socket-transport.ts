import type { Socket } from "node:net";
import { LocalError } from "../../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../jsonrpc/types.js";
import type { RemoteEndpoint, SendOptions, TransportReceiver } from "../../protocol/transport.js";
import { StreamTransport } from "../stream.js";

export interface SocketTransportOptions {
  /** Largest incoming line in bytes; see NdjsonDecoderOptions. */
  maxMessageSize?: number;
  /** How long close() waits for queued output to reach the socket (default 5 s). */
  flushTimeoutMs?: number;
  /**
   * After close() has sent our end of stream, how long to keep reading (and discarding) until
   * the peer ends its side too, before the socket is destroyed anyway (default 2 s).
   */
  lingerMs?: number;
}

interface SocketTransportInit extends SocketTransportOptions {
  /** How to name the peer; derived from the socket's remote address when absent. */
  peer?: string;
}

const DEFAULT_LINGER_MS = 2000;

/**
 * Newline-delimited JSON-RPC over one connected TCP or Unix socket. The peer ending its side is
 * handled as EOF on stdio: the receiver's ended() is called (or the channel closes). close()
 * flushes, sends our end of stream, then releases the socket (see lingerMs).
 */
export class SocketTransport extends StreamTransport {
  override readonly kind = "socket" as const;
  /**
   * Who is on the other end, for logs: the address connected to ("tcp://host:port",
   * "unix:/path"), or on the accepting side the remote "127.0.0.1:53211" (or "unix").
   */
  readonly peer: string;
  /** The peer as telemetry names it: `tcp` with its IP address and port, or `unix`. */
  readonly remote: RemoteEndpoint;
  private readonly socket: Socket;
  private lastSend: Promise<void> = Promise.resolve();
  private outputEnded = false;

  /** `socket` must be connected; it is read in half-open mode so replies can follow our EOF. */
  constructor(socket: Socket, options: SocketTransportInit = {}) {
    super(socket, socket, {
      maxMessageSize: options.maxMessageSize,
      flushTimeoutMs: options.flushTimeoutMs,
      release: () => lingerThenDestroy(socket, options.lingerMs ?? DEFAULT_LINGER_MS),
    });
    this.socket = socket;
    this.peer = options.peer ?? describePeer(socket);
    this.remote = remoteOf(socket, options.peer);
    socket.allowHalfOpen = true;
    // StreamTransport hears errors only once started; a peer that resets the connection before
    // that, or while we linger, must not crash the process with an unheard "error" event.
    socket.on("error", ignore);
  }

  override start(receiver: TransportReceiver): void {
    super.start(receiver);
    // Gone before anyone listened (a reset between accept and start): no event will come.
    if (this.socket.destroyed) void this.close();
  }

  override send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    if (this.outputEnded) {
      return Promise.reject(new LocalError("closed", "transport output has been ended"));
    }
    const sent = super.send(message);
    this.lastSend = sent.catch(ignore);
    return sent;
  }

  /**
   * Half-close: flushes what was sent, then tells the peer we have finished sending. Messages
   * keep arriving until the peer ends its side too; later sends reject. Resolves once our end of
   * stream is handed to the socket.
   */
  async end(): Promise<void> {
    if (this.outputEnded) return;
    this.outputEnded = true;
    await this.lastSend;
    if (this.socket.writableEnded || this.socket.destroyed) return;
    await new Promise<void>((resolve) => this.socket.end(resolve));
  }
}

function remoteOf(socket: Socket, named: string | undefined): RemoteEndpoint {
  if (socket.remoteAddress === undefined) {
    // The connecting side knows the path it connected to ("unix:/path"); the accepting side
    // has an unnamed peer.
    const path = named?.startsWith("unix:") ? named.slice("unix:".length) : undefined;
    return path ? { network: "unix", address: path } : { network: "unix" };
  }
  return { network: "tcp", address: socket.remoteAddress, port: socket.remotePort };
}

function describePeer(socket: Socket): string {
  const address = socket.remoteAddress;
  // Unix sockets have no remote address (clients are normally unnamed).
  if (address === undefined) return "unix";
  const host = address.includes(":") ? `[${address}]` : address;
  return `${host}:${socket.remotePort}`;
}

/**
 * Destroying a socket while the peer is still sending makes the kernel answer with a reset, and
 * the peer's next write then fails before it has read our last messages: they are lost. So until
 * the peer ends its side (it will, having read our end of stream), unread input is drained and
 * dropped. The socket stays referenced: listener.close() waits for it, and whoever awaits that
 * must not see the process exit under them.
 */
function lingerThenDestroy(socket: Socket, lingerMs: number): void {
  if (socket.destroyed) return;
  if (socket.readableEnded || !(lingerMs > 0)) {
    socket.destroy();
    return;
  }
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  socket.once("close", () => clearTimeout(timer));
  socket.once("end", () => socket.destroy());
  socket.on("data", ignore);
}

function ignore(): void {}
