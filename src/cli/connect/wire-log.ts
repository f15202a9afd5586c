import type { JsonRpcId, JsonRpcMessage } from "../../jsonrpc/types.js";
import type {
  CloseInfo,
  RemoteEndpoint,
  SendOptions,
  Transport,
  TransportKind,
  TransportReceiver,
} from "../../protocol/transport.js";
import { jsonText } from "../core/terminal.js";

/**
 * `--verbose`: wraps a transport and writes every message it carries to stderr, `->` for what
 * we send and `<-` for what we receive, one JSON line each. This is how a hanging server is
 * diagnosed in seconds: the last line shows who owes whom an answer. The JSON has every
 * control character escaped (jsonText), and `write` is expected to make the rest printable.
 */
interface WireLogOptions {
  /** Log the messages themselves (default true); false keeps only the lifecycle lines. */
  messages?: boolean;
}

export class WireLogTransport implements Transport {
  private readonly inner: Transport;
  private readonly write: (line: string) => void;
  private readonly messages: boolean;

  constructor(inner: Transport, write: (line: string) => void, options: WireLogOptions = {}) {
    this.inner = inner;
    this.write = write;
    this.messages = options.messages ?? true;
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

  start(receiver: TransportReceiver): void {
    this.inner.start({
      message: (message, context) => {
        if (this.messages) this.write(`<- ${jsonText(message)}`);
        receiver.message(message, context);
      },
      frameError: (error) => {
        const detail =
          error.kind === "oversized"
            ? `${error.size} bytes (limit ${error.limit})`
            : `${error.size} bytes`;
        this.write(`<! unreadable frame: ${error.kind}, ${detail}`);
        receiver.frameError?.(error);
      },
      // Optional hooks are forwarded only when the receiver has them: their absence has meaning.
      ended: receiver.ended ? () => receiver.ended!() : undefined,
      closed: (info) => {
        this.write(`-- closed${info.error ? `: ${info.error.message.split("\n")[0]}` : ""}`);
        receiver.closed?.(info);
      },
      interrupted: (error) => {
        this.write(`-- interrupted: ${error.message.split("\n")[0]}`);
        receiver.interrupted?.(error);
      },
      resumed: () => {
        this.write("-- resumed");
        receiver.resumed?.();
      },
    });
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.messages) this.write(`-> ${jsonText(message)}`);
    return this.inner.send(message, options);
  }

  cancel(requestId: JsonRpcId, reason?: string): boolean {
    const handled = this.inner.cancel?.(requestId, reason) ?? false;
    if (handled)
      this.write(`-- cancelled request ${jsonText(requestId)} (${reason ?? "no reason"})`);
    return handled;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
