import { lstat, unlink } from "node:fs/promises";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { LocalError } from "../../jsonrpc/errors.js";
import { SocketTransport, type SocketTransportOptions } from "./socket-transport.js";
import { formatSocketTarget, parseSocketTarget, type SocketTarget } from "./target.js";

export interface ListenSocketOptions extends SocketTransportOptions {
  /** Connections beyond this many open ones are closed as soon as they are accepted. */
  maxConnections?: number;
  /**
   * Errors of the listening socket after it started (a failed accept when out of file
   * descriptors, say) and errors thrown by onConnection (that connection is then closed).
   * Defaults to a process warning, which goes to stderr.
   */
  onError?: (error: Error) => void;
}

export interface SocketListener {
  /** Where it listens; for TCP the real port, also when port 0 was asked for. */
  readonly address: SocketTarget;
  /** Connections accepted and not yet closed. */
  readonly connections: number;
  /** The cap given in the options, if any. */
  readonly maxConnections: number | undefined;
  /**
   * Stops accepting, closes every open connection gracefully (flush, end of stream) and resolves
   * once all of them and the listening socket are closed. A Unix socket file is removed.
   */
  close(): Promise<void>;
}

interface OpenConnection {
  transport: SocketTransport;
  socketClosed: Promise<void>;
}

/**
 * Listens on a TCP port or Unix socket path; each accepted connection becomes one
 * SocketTransport handed to `onConnection`, which should start() it. A Unix socket file left by a
 * crashed process is replaced; one that a live process is listening on is never taken over.
 */
export async function listenSocket(
  target: SocketTarget | string,
  onConnection: (transport: SocketTransport) => void,
  options: ListenSocketOptions = {},
): Promise<SocketListener> {
  const where = typeof target === "string" ? parseSocketTarget(target) : target;
  const listener = new Listener(onConnection, options);
  const server =
    where.kind === "unix"
      ? await listenUnix(where.path, listener.accept)
      : await openServer(where, listener.accept);
  listener.attach(server, where);
  return listener;
}

class Listener implements SocketListener {
  address!: SocketTarget;
  readonly maxConnections: number | undefined;
  private server!: Server;
  private readonly open = new Set<OpenConnection>();
  private readonly onConnection: (transport: SocketTransport) => void;
  private readonly options: ListenSocketOptions;
  private closing: Promise<void> | undefined;

  constructor(onConnection: (transport: SocketTransport) => void, options: ListenSocketOptions) {
    this.onConnection = onConnection;
    this.options = options;
    this.maxConnections = options.maxConnections;
  }

  get connections(): number {
    return this.open.size;
  }

  attach(server: Server, where: SocketTarget): void {
    this.server = server;
    this.address =
      where.kind === "tcp" ? { ...where, port: (server.address() as AddressInfo).port } : where;
    server.on("error", this.onError);
  }

  readonly accept = (socket: Socket): void => {
    const max = this.maxConnections;
    if (this.closing || (max !== undefined && this.open.size >= max)) {
      socket.destroy();
      return;
    }
    const { maxMessageSize, flushTimeoutMs, lingerMs } = this.options;
    const transport = new SocketTransport(socket, { maxMessageSize, flushTimeoutMs, lingerMs });
    const connection: OpenConnection = {
      transport,
      socketClosed: new Promise((resolve) => socket.once("close", () => resolve())),
    };
    this.open.add(connection);
    void connection.socketClosed.then(() => this.open.delete(connection));
    try {
      this.onConnection(transport);
    } catch (error) {
      // One connection's broken handler must not take the whole listener down.
      void transport.close();
      this.onError(error instanceof Error ? error : new Error(String(error)));
    }
  };

  private readonly onError = (error: Error): void => {
    if (this.options.onError) this.options.onError(error);
    else
      process.emitWarning(`socket listener ${formatSocketTarget(this.address)}: ${error.message}`);
  };

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    // libuv unlinks a Unix socket's file when its server handle closes.
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const connections = [...this.open];
    await Promise.all(connections.map((connection) => connection.transport.close()));
    await Promise.all(connections.map((connection) => connection.socketClosed));
    await stopped;
  }
}

function openServer(where: SocketTarget, accept: (socket: Socket) => void): Promise<Server> {
  const server = createServer({ allowHalfOpen: true, noDelay: where.kind === "tcp" }, accept);
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const reason = error.code === "EADDRINUSE" ? "address already in use" : error.message;
      const message = `cannot listen on ${formatSocketTarget(where)}: ${reason}`;
      reject(new LocalError("transport", message, { cause: error }));
    };
    server.once("error", onError);
    const address = where.kind === "tcp" ? { host: where.host, port: where.port } : where;
    server.listen(address, () => {
      server.off("error", onError);
      resolve(server);
    });
  });
}

async function listenUnix(path: string, accept: (socket: Socket) => void): Promise<Server> {
  const where: SocketTarget = { kind: "unix", path };
  try {
    return await openServer(where, accept);
  } catch (error) {
    const cause = (error as Error).cause as NodeJS.ErrnoException | undefined;
    if (cause?.code !== "EADDRINUSE") throw error;
  }
  // The path exists. Only a socket file that nobody answers on is ours to replace: a live server
  // must not lose its address, and a regular file is not ours to delete.
  const state = await probeUnixSocket(path);
  if (state === "live") {
    throw new LocalError(
      "transport",
      `cannot listen on ${formatSocketTarget(where)}: another process is listening on it`,
    );
  }
  if (state === "stale") {
    const stats = await lstat(path).catch(() => undefined);
    if (stats && !stats.isSocket()) {
      throw new LocalError(
        "transport",
        `cannot listen on ${formatSocketTarget(where)}: the path exists and is not a socket`,
      );
    }
    await unlink(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
  return openServer(where, accept);
}

/** "live" when something accepts connections at `path`, "stale" when nothing does, "gone" if absent. */
function probeUnixSocket(path: string): Promise<"live" | "stale" | "gone"> {
  return new Promise((resolve) => {
    const probe = connect({ path });
    probe.once("connect", () => {
      probe.destroy();
      resolve("live");
    });
    probe.once("error", (error: NodeJS.ErrnoException) => {
      probe.destroy();
      // Anything but a refusal (a full backlog, no permission) means someone owns it.
      if (error.code === "ECONNREFUSED") resolve("stale");
      else if (error.code === "ENOENT") resolve("gone");
      else resolve("live");
    });
  });
}
