import { parseMessage } from "../../jsonrpc/classify.js";
import type { JsonRpcId, JsonRpcMessage } from "../../jsonrpc/types.js";
import { META } from "../../protocol/meta.js";
import { isModernVersion } from "../../protocol/versions.js";

type Direction = "c2s" | "s2c";

/** One line of a tap recording (NDJSON). `t` is milliseconds since the tap started. */
export type TapRecord =
  | { t: number; dir: Direction; msg: JsonRpcMessage }
  | { t: number; dir: Direction; raw: string }
  | { t: number; stderr: string };

interface TapMonitorOptions {
  record(record: TapRecord): void;
  /** One protocol violation, as a sentence. */
  warn(message: string): void;
  /** Milliseconds since the start. */
  now(): number;
  /** Silence on stdout after stderr output, with a request pending, that counts as a hang. */
  hangMs: number;
  /** Told each message that crossed (tracing with --otel). */
  observe?: ((direction: Direction, message: JsonRpcMessage) => void) | undefined;
}

interface Pending {
  method: string;
  progressToken: unknown;
}

/**
 * Watches both directions of a stdio MCP connection and reports what a well-behaved server
 * never does: bytes on stdout that are not JSON-RPC, replies to ids nobody asked, messages about
 * requests the client cancelled, server-to-client requests on a modern connection, and stderr
 * output followed by silence while a request waits (the classic "it just hangs": the server
 * crashed or logged an exception and will never answer).
 */
export class TapMonitor {
  private readonly pending = new Map<JsonRpcId, Pending>();
  private readonly cancelled = new Map<JsonRpcId, Pending>();
  private readonly serverRequests = new Set<JsonRpcId>();
  /** True once a client request carried a modern protocol version in its `_meta`. */
  private modern = false;
  private lastStdoutAt = 0;
  private lastStderr = "";
  private hangTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TapMonitorOptions) {}

  clientLine(text: string): void {
    const message = this.read("c2s", text);
    if (!message) {
      this.options.warn(`client sent a line that is not JSON-RPC: ${excerpt(text)}`);
      return;
    }
    if ("method" in message) {
      if ("id" in message && message.id !== undefined) {
        const meta = message.params?._meta as Record<string, unknown> | undefined;
        if (isModernVersion(meta?.[META.protocolVersion])) this.modern = true;
        this.pending.set(message.id, {
          method: message.method,
          progressToken: meta?.[META.progressToken],
        });
      } else if (message.method === "notifications/cancelled") {
        const id = message.params?.requestId as JsonRpcId | undefined;
        const request = id === undefined ? undefined : this.pending.get(id);
        if (id !== undefined && request) {
          this.pending.delete(id);
          this.cancelled.set(id, request);
        }
      }
    } else if (message.id !== null) {
      this.serverRequests.delete(message.id);
    }
  }

  serverLine(text: string): void {
    this.lastStdoutAt = this.options.now();
    this.disarmHang();
    const parsed = parseMessage(text);
    if (!parsed.ok) {
      this.options.record({ t: this.options.now(), dir: "s2c", raw: text });
      const what = parsed.error.code === -32700 ? "non-JSON" : "non-MCP";
      this.options.warn(`${what} output on the server's stdout: ${excerpt(text)}`);
      return;
    }
    const message = parsed.message;
    this.options.record({ t: this.options.now(), dir: "s2c", msg: message });
    this.options.observe?.("s2c", message);
    if (!("method" in message)) {
      if (message.id === null) return;
      if (this.pending.delete(message.id)) return;
      const cancelled = this.cancelled.get(message.id);
      if (cancelled) {
        this.cancelled.delete(message.id);
        this.options.warn(
          `reply to cancelled request ${JSON.stringify(message.id)} (${cancelled.method}) after notifications/cancelled`,
        );
        return;
      }
      this.options.warn(`response to unknown id ${JSON.stringify(message.id)}`);
      return;
    }
    if ("id" in message && message.id !== undefined) {
      this.serverRequests.add(message.id);
      if (this.modern) {
        this.options.warn(
          `server sent request ${message.method} on a modern connection (2026-07-28 servers ask for input with input_required results)`,
        );
      }
      return;
    }
    const token = message.params?.progressToken;
    if (message.method === "notifications/progress" && token !== undefined) {
      for (const [id, request] of this.cancelled) {
        if (request.progressToken === token) {
          this.options.warn(
            `progress for cancelled request ${JSON.stringify(id)} (${request.method}) after notifications/cancelled`,
          );
        }
      }
    }
  }

  serverStderr(text: string): void {
    this.options.record({ t: this.options.now(), stderr: text });
    this.lastStderr = text;
    if (this.pending.size === 0) return;
    // Each burst restarts the clock: the hang is measured from the last thing the server said.
    this.disarmHang();
    const since = this.options.now();
    this.hangTimer = setTimeout(() => this.checkHang(since), this.options.hangMs);
    this.hangTimer.unref();
  }

  oversized(dir: Direction, size: number): void {
    this.options.warn(
      `${dir === "s2c" ? "server" : "client"} sent a ${size}-byte line, not recorded`,
    );
  }

  dispose(): void {
    this.disarmHang();
  }

  private checkHang(since: number): void {
    this.hangTimer = undefined;
    if (this.pending.size === 0 || this.lastStdoutAt > since) return;
    const methods = [...this.pending.values()].map((request) => request.method).join(", ");
    const seconds = (this.options.hangMs / 1000).toFixed(1);
    this.options.warn(
      `server wrote to stderr and then nothing on stdout for ${seconds}s with ${this.pending.size} request(s) pending (${methods}); last stderr: ${excerpt(this.lastStderr)}`,
    );
  }

  private disarmHang(): void {
    if (this.hangTimer) clearTimeout(this.hangTimer);
    this.hangTimer = undefined;
  }

  /** Records a client line; returns the message when it is one. */
  private read(dir: Direction, text: string): JsonRpcMessage | undefined {
    const parsed = parseMessage(text);
    if (parsed.ok) {
      this.options.record({ t: this.options.now(), dir, msg: parsed.message });
      this.options.observe?.(dir, parsed.message);
      return parsed.message;
    }
    this.options.record({ t: this.options.now(), dir, raw: text });
    return undefined;
  }
}

function excerpt(text: string): string {
  const trimmed = text.trim();
  return JSON.stringify(trimmed.length > 120 ? `${trimmed.slice(0, 120)}…` : trimmed);
}
