/**
 * The Transport an McpServer is connected to behind the HTTP handler. Every POSTed request enters
 * under a fresh internal id (HTTP clients all start counting at 1, so their ids collide), and
 * whatever the server sends for that id is routed back to the POST's response under the
 * client's own id.
 */
import { isPlainObject, LocalError } from "../../jsonrpc/errors.js";
import type {
  JsonObject,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
} from "../../jsonrpc/types.js";
import { IdTable } from "../../protocol/id-table.js";
import { META } from "../../protocol/meta.js";
import type {
  CloseInfo,
  MessageContext,
  SendOptions,
  Transport,
  TransportReceiver,
} from "../../protocol/transport.js";
import type { Exchange, ExchangeOwner } from "./exchange.js";

const SUBSCRIPTION_ID = META.subscriptionId;

/**
 * A listen stream names its subscription by the request id, which the server only knows as our
 * internal id; the client must see its own.
 */
function withClientSubscriptionId(
  body: JsonObject,
  internalId: JsonRpcId,
  originalId: JsonRpcId,
): JsonObject {
  const meta = body._meta;
  if (!isPlainObject(meta) || meta[SUBSCRIPTION_ID] !== internalId) return body;
  return { ...body, _meta: { ...meta, [SUBSCRIPTION_ID]: originalId } };
}

export class HttpServerTransport implements Transport, ExchangeOwner {
  readonly kind = "http" as const;
  readonly closed: Promise<CloseInfo>;
  private receiver: TransportReceiver | undefined;
  /** Open exchanges by internal id: an IdTable, not a Map (see protocol/id-table.ts). */
  private readonly exchanges = new IdTable<Exchange>();
  private nextId = 0;
  private isClosed = false;
  private resolveClosed!: (info: CloseInfo) => void;

  /** `report`: where peer-caused problems worth a log line go (the server's onError). */
  constructor(private readonly report?: (error: Error) => void) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** Requests whose response is still open. */
  get openExchanges(): number {
    return this.exchanges.size;
  }

  start(receiver: TransportReceiver): void {
    if (this.receiver) throw new Error("transport already started");
    this.receiver = receiver;
  }

  /** Hands one POSTed request to the server; its output goes to `exchange`. */
  deliverRequest(request: JsonRpcRequest, exchange: Exchange, context: MessageContext): void {
    if (exchange.finished) return; // the client left before its request was dispatched
    if (this.isClosed || !this.receiver) {
      exchange.fail("Server is shutting down");
      return;
    }
    const internalId = ++this.nextId;
    this.exchanges.set(internalId, exchange);
    exchange.attach(this, internalId);
    this.receiver.message({ ...request, id: internalId }, context);
  }

  /** ExchangeOwner: the exchange will write nothing more. */
  exchangeDone(internalId: number): void {
    this.exchanges.delete(internalId);
  }

  /**
   * ExchangeOwner: a client that closes its response stream cancels the request, as MCP
   * cancellation does: the handler's signal aborts and no reply is sent.
   */
  clientGone(internalId: number): void {
    const params = { requestId: internalId, reason: "client closed the response stream" };
    this.receiver?.message({ jsonrpc: "2.0", method: "notifications/cancelled", params });
  }

  /**
   * ExchangeOwner: the client stopped reading a stream and the exchange ended it; the handler
   * (a listen stream's subscription) is stopped like a cancelled one.
   */
  streamOverflowed(internalId: number, backlog: number): void {
    this.report?.(
      new LocalError(
        "transport",
        `ended a response stream its client was not reading (${backlog} bytes waiting)`,
        { peerFault: "response stream not read" },
      ),
    );
    const params = { requestId: internalId, reason: "the client did not read its response stream" };
    this.receiver?.message({ jsonrpc: "2.0", method: "notifications/cancelled", params });
  }

  deliverNotification(notification: JsonRpcNotification, context: MessageContext): void {
    if (this.isClosed || !this.receiver) return;
    this.receiver.message(notification, context);
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.isClosed) return Promise.reject(new LocalError("closed", "transport closed"));
    if ("method" in message && "id" in message) {
      // 2026-07-28 servers ask clients through MRTR results, never through requests.
      return Promise.reject(
        new LocalError("transport", "Streamable HTTP (2026-07-28) carries no server requests"),
      );
    }
    if (!("method" in message)) {
      const exchange = this.exchangeFor(message.id);
      // No exchange: the client went away, so the reply has nowhere to go.
      if (!exchange) return Promise.resolve();
      if (!("result" in message)) return exchange.reply(message);
      const result = withClientSubscriptionId(message.result, message.id, exchange.originalId);
      // The exchange copies the reply anyway (under the client's id): no copy here unless changed.
      return exchange.reply(result === message.result ? message : { ...message, result });
    }
    const related = options?.relatedRequestId;
    const exchange = this.exchangeFor(related);
    // Unrelated notifications (legacy list_changed) have no stream on modern HTTP.
    if (!exchange) return Promise.resolve();
    if (message.method === "notifications/cancelled" && message.params?.requestId === related) {
      // The server tearing down a subscription: tell the client under its own id. The
      // completion result follows on the same stream and ends it.
      const named = { ...message.params, requestId: exchange.originalId };
      const params = withClientSubscriptionId(named, related!, exchange.originalId);
      return exchange.notify({ ...message, params });
    }
    if (message.params === undefined) return exchange.notify(message);
    const params = withClientSubscriptionId(message.params, related!, exchange.originalId);
    return exchange.notify({ ...message, params });
  }

  /** Our ids are numbers; anything else (a string "3" included) names no exchange. */
  private exchangeFor(id: JsonRpcId | null | undefined): Exchange | undefined {
    return typeof id === "number" ? this.exchanges.get(id) : undefined;
  }

  cancel(): boolean {
    return false;
  }

  async close(): Promise<void> {
    if (this.isClosed) return this.closed.then(() => {});
    this.isClosed = true;
    // fail() takes each exchange out of the table (exchangeDone) as it goes.
    for (const exchange of this.exchanges.values()) exchange.fail("Server is shutting down");
    const info: CloseInfo = {};
    this.resolveClosed(info);
    this.receiver?.closed?.(info);
  }
}
