/**
 * Two connected in-process transports, for tests and embedding.
 *
 * @module mcpwire/transports/memory
 */
import { parseMessage } from "../jsonrpc/classify.js";
import { LocalError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/types.js";
import { macrotask } from "../platform/scheduling.js";
import { utf8Length } from "../platform/utf8-length.js";
import type {
  CloseInfo,
  SendOptions,
  Transport,
  TransportReceiver,
} from "../protocol/transport.js";

export interface MemoryPairOptions {
  /**
   * Whether each message travels as JSON text (default true), as it would on a wire: the sender
   * can mutate its object after send() without effect, values JSON cannot carry make send()
   * reject, and text that is not a valid JSON-RPC message reaches frameError(). Pass false to hand
   * the very same object over, for embedding where the copy is not wanted.
   */
  serialize?: boolean;
}

/**
 * Two linked in-process transports: what one sends, the other receives, in order and always
 * asynchronously (never inside send()). Messages sent before the other side starts wait for it.
 * Closing one side ends the other's input: its receiver gets ended() and may still close at its
 * own pace (or is closed at once without an ended() handler); what it sends after that is
 * dropped, as bytes written to a peer that went away.
 */
export function createMemoryPair(options: MemoryPairOptions = {}): [Transport, Transport] {
  const serialize = options.serialize ?? true;
  const left = new MemoryTransport(serialize);
  const right = new MemoryTransport(serialize);
  left.link(right);
  right.link(left);
  return [left, right];
}

type Delivery = { kind: "message"; payload: string | JsonRpcMessage } | { kind: "end" };

class MemoryTransport implements Transport {
  readonly kind = "memory" as const;
  readonly closed: Promise<CloseInfo>;
  private readonly serialize: boolean;
  private peer!: MemoryTransport;
  private receiver: TransportReceiver | undefined;
  private inbox: Delivery[] = [];
  private drainScheduled = false;
  private isClosed = false;
  private resolveClosed!: (info: CloseInfo) => void;

  constructor(serialize: boolean) {
    this.serialize = serialize;
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  link(peer: MemoryTransport): void {
    this.peer = peer;
  }

  start(receiver: TransportReceiver): void {
    if (this.receiver) throw new Error("transport already started");
    this.receiver = receiver;
    this.scheduleDrain();
  }

  send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    if (this.isClosed) return Promise.reject(new LocalError("closed", "transport closed"));
    let payload: string | JsonRpcMessage = message;
    if (this.serialize) {
      let text: string | undefined;
      try {
        text = JSON.stringify(message);
      } catch (cause) {
        return Promise.reject(
          new LocalError("transport", "message is not serialisable", { cause }),
        );
      }
      // JSON.stringify gives undefined for undefined, functions and symbols.
      if (typeof text !== "string") {
        return Promise.reject(new LocalError("transport", "message is not serialisable"));
      }
      payload = text;
    }
    this.peer.enqueue({ kind: "message", payload });
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (!this.isClosed) {
      this.isClosed = true;
      this.inbox = [];
      this.peer.enqueue({ kind: "end" });
      this.receiver?.closed?.({});
      this.resolveClosed({});
    }
    return this.closed.then(() => undefined);
  }

  private enqueue(delivery: Delivery): void {
    if (this.isClosed) return;
    this.inbox.push(delivery);
    this.scheduleDrain();
  }

  private scheduleDrain(): void {
    if (this.drainScheduled || !this.receiver || this.inbox.length === 0) return;
    this.drainScheduled = true;
    // A macrotask, not a microtask: two sides answering each other forever must still let
    // timers and I/O run between rounds, as a real channel would.
    macrotask(this.drain);
  }

  private readonly drain = (): void => {
    this.drainScheduled = false;
    const receiver = this.receiver!;
    const batch = this.inbox;
    this.inbox = [];
    for (const delivery of batch) {
      if (this.isClosed) return;
      if (delivery.kind === "message") this.deliver(receiver, delivery.payload);
      else if (receiver.ended) receiver.ended();
      else void this.close();
    }
  };

  private deliver(receiver: TransportReceiver, payload: string | JsonRpcMessage): void {
    if (typeof payload !== "string") {
      receiver.message(payload);
      return;
    }
    const result = parseMessage(payload);
    if (result.ok) receiver.message(result.message);
    else {
      receiver.frameError?.({ kind: "invalid", failure: result, size: utf8Length(payload) });
    }
  }
}
