/**
 * The deprecated HTTP+SSE transport of 2024-11-05, the last fallback: a GET opens an SSE stream
 * whose first event, `endpoint`, names the URL to POST messages to; every server message,
 * replies included, arrives on that one stream.
 */
import type { EventSourceMessage } from "eventsource-parser";
import { parseMessage } from "../../../jsonrpc/classify.js";
import { LocalError } from "../../../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../../jsonrpc/types.js";
import type { HttpCarrier } from "./carrier.js";
import { HttpStatusError } from "./era.js";
import { readSse } from "./sse-reader.js";

export class SseEndpoint {
  private readonly carrier: HttpCarrier;
  private readonly stream = new AbortController();
  private endpoint: URL | undefined;

  constructor(carrier: HttpCarrier) {
    this.carrier = carrier;
  }

  /** Opens the stream and waits for the `endpoint` event. */
  async open(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.stream.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const headers = await this.carrier.baseHeaders();
      headers.Accept = "text/event-stream";
      const response = await this.carrier.fetch(this.carrier.url, {
        method: "GET",
        headers,
        signal: this.stream.signal,
      });
      const type = response.headers.get("content-type") ?? "";
      if (!response.ok || !type.includes("text/event-stream") || !response.body) {
        const text = await response.text().catch(() => "");
        throw new HttpStatusError(response.status, text, response.headers, "HTTP+SSE GET");
      }
      const body = response.body;
      await new Promise<void>((resolve, reject) => {
        let ready = false;
        const ended = (cause: unknown) => {
          const error = cause instanceof Error ? cause : new Error("the HTTP+SSE stream ended");
          if (ready) this.lost(error);
          else
            reject(
              new LocalError("transport", `HTTP+SSE stream gave no endpoint: ${error.message}`),
            );
        };
        readSse(body, {
          event: (event) => {
            if (ready) return this.onMessageEvent(event);
            if (event.event !== "endpoint") return;
            const endpoint = new URL(event.data.trim(), this.carrier.url);
            if (endpoint.origin !== this.carrier.url.origin) {
              this.stream.abort();
              return reject(
                new LocalError("transport", `HTTP+SSE endpoint ${endpoint} is cross-origin`),
              );
            }
            this.endpoint = endpoint;
            ready = true;
            resolve();
          },
        }).then(() => ended(undefined), ended);
      });
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  private onMessageEvent(event: EventSourceMessage): void {
    if ((event.event !== undefined && event.event !== "message") || event.data.trim() === "")
      return;
    const parsed = parseMessage(event.data);
    if (parsed.ok) this.carrier.sink.message(parsed.message);
    else this.carrier.sink.invalid(parsed.error.message);
  }

  private lost(error: Error): void {
    if (this.stream.signal.aborted || this.carrier.isClosed) return;
    this.carrier.fail(new LocalError("closed", error.message, { cause: error }));
  }

  /** POSTs one message; the answer to a request comes on the stream. */
  async post(message: JsonRpcMessage): Promise<void> {
    if (!this.endpoint) throw new LocalError("transport", "HTTP+SSE endpoint not known yet");
    const headers = await this.carrier.baseHeaders();
    headers["Content-Type"] = "application/json";
    const response = await this.carrier.fetch(this.endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify(message),
    });
    const text = await response.text().catch(() => "");
    if (!response.ok) {
      const what = "method" in message ? message.method : "response";
      throw new HttpStatusError(response.status, text, response.headers, what);
    }
  }

  close(): void {
    this.stream.abort();
  }
}
