import { isPlainObject, LocalError } from "../../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage } from "../../jsonrpc/types.js";
import type {
  CloseInfo,
  SendOptions,
  Transport,
  TransportReceiver,
} from "../../protocol/transport.js";

interface RawWaiter {
  resolve(reply: JsonRpcMessage): void;
  reject(error: Error): void;
}

/**
 * The shell's tap on the client's transport: a line starting with `{` goes onto the wire exactly
 * as typed, and the reply with its id is taken out of the stream before the client's session
 * sees it (the session would only report "a response to an unknown id"). Everything else passes
 * through untouched.
 */
export class RawTransport implements Transport {
  private readonly inner: Transport;
  private readonly waiting = new Map<JsonRpcId, RawWaiter>();
  private nextId = 1;

  constructor(inner: Transport) {
    this.inner = inner;
  }

  get closed(): Promise<CloseInfo> {
    return this.inner.closed;
  }

  start(receiver: TransportReceiver): void {
    this.inner.start({
      message: (message, context) => {
        if (!this.takeReply(message)) receiver.message(message, context);
      },
      frameError: receiver.frameError ? (error) => receiver.frameError!(error) : undefined,
      ended: receiver.ended ? () => receiver.ended!() : undefined,
      closed: (info) => {
        this.failAll(new LocalError("closed", "the connection closed before the reply"));
        receiver.closed?.(info);
      },
      interrupted: receiver.interrupted ? (error) => receiver.interrupted!(error) : undefined,
      resumed: receiver.resumed ? () => receiver.resumed!() : undefined,
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

  /**
   * Sends a message as typed, but for its id: a request goes out under an id of its own (so it
   * can never be confused with the client's requests, which number from 1) and resolves with the
   * reply, the typed id put back. Anything else resolves with undefined once sent. Aborting
   * stops the wait only.
   */
  async sendRaw(
    message: JsonRpcMessage,
    signal?: AbortSignal,
  ): Promise<JsonRpcMessage | undefined> {
    const typedId = (message as { id?: unknown }).id;
    const expectsReply =
      typeof (message as { method?: unknown }).method === "string" &&
      (typeof typedId === "string" || typeof typedId === "number");
    if (!expectsReply) {
      await this.inner.send(message);
      return undefined;
    }
    const wireId = `mcpwire-shell-${this.nextId++}`;
    const reply = new Promise<JsonRpcMessage>((resolve, reject) => {
      this.waiting.set(wireId, { resolve, reject });
    });
    const onAbort = () => {
      const reason = signal?.reason;
      this.waiting
        .get(wireId)
        ?.reject(reason instanceof Error ? reason : new LocalError("aborted", "cancelled"));
      this.waiting.delete(wireId);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await this.inner.send(withId(message, wireId));
      return withId(await reply, typedId);
    } catch (error) {
      this.waiting.delete(wireId);
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** A reply to one of our raw requests (or an id-less error while one waits) is ours. */
  private takeReply(message: JsonRpcMessage): boolean {
    if (this.waiting.size === 0 || !isPlainObject(message) || "method" in message) return false;
    const id = (message as { id?: unknown }).id;
    let key: JsonRpcId | undefined;
    if ((typeof id === "string" || typeof id === "number") && this.waiting.has(id)) key = id;
    // A server that cannot read the request at all answers with id null: the oldest waiter's.
    else if (id === null && "error" in message) key = this.waiting.keys().next().value;
    if (key === undefined) return false;
    const waiter = this.waiting.get(key)!;
    this.waiting.delete(key);
    waiter.resolve(message);
    return true;
  }

  private failAll(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

/** The same message with another id, the keys kept in their order. */
function withId(message: JsonRpcMessage, id: unknown): JsonRpcMessage {
  const entries = Object.entries(message).map(([key, value]) => [key, key === "id" ? id : value]);
  return Object.fromEntries(entries) as JsonRpcMessage;
}
