/**
 * Spans for a relay that forwards JSON-RPC lines without a client or server of its own
 * (`mcpwire tap`): each request crossing it, either way, is a SERVER span from the line that
 * carried it to the line that answered it, continuing the sender's trace from `params._meta`
 * (the relay adds nothing to the bytes, so the receiver's span is this one's sibling). A
 * notification is a span that ends where it starts. Requests still unanswered when the relay
 * closes end as errors of kind `closed`.
 */
import { JsonRpcError, LocalError } from "../jsonrpc/errors.js";
import type { JsonObject, JsonRpcId, JsonRpcMessage } from "../jsonrpc/types.js";
import { META } from "../protocol/meta.js";
import type { NetworkFacts } from "./attributes.js";
import { recording } from "./instruments.js";
import { observeOperation } from "./operation.js";

export type RelayDirection = "c2s" | "s2c";

interface Open {
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

/** Requests awaiting a reply that get a span; past it (a peer that never answers) none do. */
const MAX_OPEN = 10_000;

export class RelayTracer {
  private readonly open = new Map<string, Open>();
  /** The legacy version the initialize reply chose (modern requests carry theirs). */
  private negotiated: string | undefined;
  private initializeId: string | undefined;

  constructor(private readonly network: NetworkFacts) {}

  /** One message that crossed the relay in `direction`. */
  message(direction: RelayDirection, message: JsonRpcMessage): void {
    if (!("method" in message)) {
      this.answered(direction, message.id, message);
      return;
    }
    if (!recording("server")) return;
    const params = message.params;
    const meta = params?._meta as Record<string, unknown> | undefined;
    const stated = meta?.[META.protocolVersion];
    const id = "id" in message ? message.id : undefined;
    const facts = {
      method: message.method,
      params,
      requestId: id,
      protocolVersion: typeof stated === "string" ? stated : this.negotiated,
      network: this.network,
    };
    let run: () => Promise<JsonObject>;
    if (id === undefined) {
      run = () => Promise.resolve({});
    } else {
      const key = keyOf(direction, id);
      if (this.open.size >= MAX_OPEN || this.open.has(key)) return;
      if (message.method === "initialize") this.initializeId = key;
      run = () =>
        new Promise<JsonObject>((resolve, reject) => this.open.set(key, { resolve, reject }));
    }
    // The outcome is the span's; nobody awaits it here.
    observeOperation("server", facts, run, { received: { meta } }).catch(() => {});
  }

  /** The relay closed: what is still open ends as closed. */
  close(): void {
    for (const open of this.open.values()) {
      open.reject(new LocalError("closed", "the relay closed before the reply"));
    }
    this.open.clear();
  }

  private answered(direction: RelayDirection, id: JsonRpcId | null, message: JsonRpcMessage): void {
    if (id === null) return;
    // A reply goes the other way from its request.
    const key = keyOf(direction === "c2s" ? "s2c" : "c2s", id);
    const open = this.open.get(key);
    if (open === undefined) return;
    this.open.delete(key);
    if ("error" in message && message.error !== undefined) {
      const { code, message: text, data } = message.error;
      open.reject(new JsonRpcError(code, text, data));
      return;
    }
    const result = ("result" in message ? message.result : {}) as JsonObject;
    if (key === this.initializeId && typeof result.protocolVersion === "string") {
      this.negotiated = result.protocolVersion;
    }
    open.resolve(result);
  }
}

function keyOf(direction: RelayDirection, id: JsonRpcId): string {
  return `${direction}:${typeof id}:${String(id)}`;
}
