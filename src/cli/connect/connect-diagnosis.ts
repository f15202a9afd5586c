import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage } from "../../jsonrpc/types.js";
import type {
  CloseInfo,
  RemoteEndpoint,
  SendOptions,
  Transport,
  TransportKind,
  TransportReceiver,
} from "../../protocol/transport.js";
import { printableLine } from "../../text/printable.js";
import { NotAReplyError } from "../../transports/http/client/answer-reader.js";
import { HttpStatusError } from "../../transports/http/client/era.js";

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

  /** The wrapped channel's kind and session: middleware (tracing) reads them through us. */
  get kind(): TransportKind | undefined {
    return this.inner.kind;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get remote(): RemoteEndpoint | undefined {
    return this.inner.remote;
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

/**
 * One line for an HTTP target that is not (at that URL) an MCP endpoint: a wrong path on a real
 * server, a web server that is no MCP server (its page is never shown), TLS against a plain-http
 * port. Undefined for what others explain better (401/403: authorization).
 */
export function httpFailure(error: unknown, url: URL): string | undefined {
  const where = printableLine(url.href);
  const hint =
    url.pathname === "/mcp" ? "is it the server's MCP endpoint?" : "servers usually serve /mcp";
  const status = inChain(error, (cause) => cause instanceof HttpStatusError) as
    | HttpStatusError
    | undefined;
  if (status !== undefined) {
    if (status.status === 401 || status.status === 403) return undefined;
    if (status.status === 404 || status.status === 405) {
      return `no MCP endpoint at ${where} (HTTP ${status.status}); ${hint}`;
    }
    const type = status.headers.get("content-type")?.split(";")[0]?.trim();
    return `${where} answered HTTP ${status.status}${type ? ` (${printableLine(type)})` : ""}, not MCP; ${hint}`;
  }
  const page = inChain(error, (cause) => cause instanceof NotAReplyError) as
    | NotAReplyError
    | undefined;
  if (page !== undefined) {
    const type = page.contentType.split(";")[0]?.trim() || "no body";
    return `${where} answered HTTP ${page.status} (${printableLine(type)}), not MCP; ${hint}`;
  }
  if (url.protocol === "https:" && inChain(error, wrongTlsVersion) !== undefined) {
    const plain = new URL(url.href);
    plain.protocol = "http:";
    return `${where}: the port does not speak TLS (plain HTTP?); try ${printableLine(plain.href)}`;
  }
  return undefined;
}

/** OpenSSL's answer to a plain-HTTP reply where a TLS record was expected. */
function wrongTlsVersion(cause: unknown): boolean {
  const code = (cause as NodeJS.ErrnoException).code;
  return (
    code === "ERR_SSL_WRONG_VERSION_NUMBER" ||
    (cause instanceof Error && /wrong version number/i.test(cause.message))
  );
}

function inChain(error: unknown, wanted: (cause: unknown) => boolean): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (wanted(current)) return current;
    if (current instanceof AggregateError && current.errors.length > 0) current = current.errors[0];
    else current = current.cause;
  }
  return undefined;
}

/**
 * With `--era modern`, how a server that speaks only the legacy protocol (initialize, 2025-11-25
 * and before) refuses our server/discover: -32601 (stdio), the official SDK's -32000 "Server not
 * initialized" or a -32600 (HTTP), or a 400/405 without a JSON-RPC body. The refusal itself, with
 * a hint to let mcpwire detect the era; undefined for any other failure.
 */
export function legacyOnlyRefusal(error: unknown): { message: string; hint: string } | undefined {
  let message: string | undefined;
  if (error instanceof JsonRpcError && [-32601, -32600, -32000].includes(error.code)) {
    message = `server error ${error.code}: ${printableLine(error.message)}`;
  } else if (
    error instanceof HttpStatusError &&
    error.eraSignal === "legacy" &&
    error.status !== 404
  ) {
    message = printableLine(error.message);
  }
  if (message === undefined) return undefined;
  return {
    message,
    hint: "hint: the server may speak only the legacy protocol (initialize); drop --era modern to let mcpwire detect the era, or use --era legacy",
  };
}
