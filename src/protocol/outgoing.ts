import { JsonRpcError, LocalError } from "../jsonrpc/errors.js";
import type { JsonObject, JsonRpcId, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/types.js";
import { IdTable } from "./id-table.js";
import type { AbortSource } from "./lazy-abort.js";
import type { SendOptions } from "./transport.js";

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** Abort to cancel the request; the peer is told, the promise rejects with LocalError "aborted". */
  signal?: AbortSignal;
  /**
   * Cancels the request as `signal` does, without an AbortSignal made per request (on Node 20
   * one costs more than the rest of a small request's bookkeeping): a signal is made from it
   * only where one must be handed on (middleware, input rounds, a task's polling).
   */
  abort?: AbortSource;
  /** Overrides the session's default timeout for this request (ms). */
  timeoutMs?: number;
  /** Progress for this request; asks the peer for it by adding a progressToken. */
  onProgress?: (progress: Progress) => void;
  /** Restart the timeout clock on each progress notification (still under maxTotalTimeoutMs). */
  resetTimeoutOnProgress?: boolean;
  /** Hard cap for this request, progress resets included (ms). Defaults to the session's cap. */
  maxTotalTimeoutMs?: number;
  /** The incoming request this one is made on behalf of (routes it onto that HTTP stream). */
  relatedRequestId?: JsonRpcId;
  /**
   * No timeout at all: for long-lived requests that end by cancellation, such as
   * `subscriptions/listen` streams. Timeout options are then ignored.
   */
  noTimeout?: boolean;
  /** Told the id the request goes out under, before it is sent (e.g. to demultiplex by id). */
  onRequestId?: (id: JsonRpcId) => void;
  /** An era probe: a transport that already knows the endpoint's era may refuse it locally. */
  probe?: boolean;
  /**
   * What the request is made for (a relay's call, say), told to the handlers of requests the
   * peer makes on its behalf (`originOf`); kept with the request, only while it is open.
   */
  origin?: unknown;
}

/** The request's cancellation as an AbortSignal: its own, else one made from its abort source. */
export function signalOf(options: RequestOptions): AbortSignal | undefined {
  return options.signal ?? options.abort?.signal;
}

interface Pending {
  id: JsonRpcId;
  method: string;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
  options: RequestOptions | undefined;
  timer: NodeJS.Timeout | undefined;
  startedAt: number;
  deadline: number;
  timeoutMs: number;
  progressToken: JsonRpcId | undefined;
  onAbort: (() => void) | undefined;
  /** Stops listening to options.abort. */
  unwatch: (() => void) | undefined;
}

interface OutgoingDeps {
  send(message: JsonRpcRequest, options: SendOptions | undefined): Promise<void>;
  cancelOnWire(id: JsonRpcId, reason: string): void;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
}

/** Outgoing requests awaiting replies: ids, timeouts, cancellation and progress routing. */
export class OutgoingRequests {
  private readonly deps: OutgoingDeps;
  /** By id and by progress token: IdTable, not Map (see id-table.ts). */
  private readonly pending = new IdTable<Pending>();
  private readonly byProgressToken = new IdTable<Pending>();
  private nextId = 1;

  constructor(deps: OutgoingDeps) {
    this.deps = deps;
  }

  get size(): number {
    return this.pending.size;
  }

  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(abortError(signal, method));
    const source = options?.abort;
    if (source?.aborted) return Promise.reject(abortError(source, method));
    const id = this.nextId++;
    const progressToken = options?.onProgress ? id : undefined;
    const wireParams =
      progressToken === undefined ? params : withProgressToken(params, progressToken);
    const message: JsonRpcRequest =
      wireParams === undefined
        ? { jsonrpc: "2.0", id, method }
        : { jsonrpc: "2.0", id, method, params: wireParams };

    return new Promise<JsonObject>((resolve, reject) => {
      const maxTotal = Math.min(
        options?.maxTotalTimeoutMs ?? this.deps.maxTimeoutMs,
        this.deps.maxTimeoutMs,
      );
      const timeoutMs = Math.min(options?.timeoutMs ?? this.deps.defaultTimeoutMs, maxTotal);
      const entry: Pending = {
        id,
        method,
        resolve,
        reject,
        options,
        timer: undefined,
        startedAt: Date.now(),
        deadline: Date.now() + maxTotal,
        timeoutMs,
        progressToken,
        onAbort: undefined,
        unwatch: undefined,
      };
      this.pending.set(id, entry);
      options?.onRequestId?.(id);
      if (progressToken !== undefined) this.byProgressToken.set(progressToken, entry);
      this.arm(entry, timeoutMs);
      if (signal) {
        entry.onAbort = () => this.cancel(entry, abortError(signal, method));
        signal.addEventListener("abort", entry.onAbort, { once: true });
      }
      if (source) {
        entry.unwatch = source.whenAborted(() => this.cancel(entry, abortError(source, method)));
      }
      const sendOptions =
        options?.relatedRequestId !== undefined || options?.probe
          ? { relatedRequestId: options.relatedRequestId, probe: options.probe }
          : undefined;
      this.deps.send(message, sendOptions).catch((error: unknown) => {
        if (this.pending.get(id) !== entry) return;
        this.finish(entry);
        reject(
          error instanceof LocalError
            ? error
            : new LocalError("transport", `could not send ${method}`, { cause: error }),
        );
      });
    });
  }

  /** The origin of the request open under this id, if it has one. */
  originOf(id: JsonRpcId): unknown {
    return this.pending.get(id)?.options?.origin;
  }

  /** Routes a reply to its request. Returns false when no request is waiting for that id. */
  settle(response: JsonRpcResponse): boolean {
    if (response.id === null) return false;
    const entry = this.pending.get(response.id);
    if (!entry) return false;
    this.finish(entry);
    if ("error" in response) entry.reject(JsonRpcError.fromObject(response.error));
    else entry.resolve(response.result);
    return true;
  }

  /** Handles `notifications/progress` params. */
  progress(params: JsonObject): void {
    const token = params.progressToken;
    if (typeof token !== "string" && typeof token !== "number") return;
    const entry = this.byProgressToken.get(token);
    if (!entry || typeof params.progress !== "number") return;
    if (entry.options?.resetTimeoutOnProgress) this.arm(entry, entry.timeoutMs);
    const update: Progress = { progress: params.progress };
    if (typeof params.total === "number") update.total = params.total;
    if (typeof params.message === "string") update.message = params.message;
    entry.options?.onProgress?.(update);
  }

  /** Fails every waiting request (transport closed or the peer crashed). */
  rejectAll(error: Error): void {
    for (const entry of this.pending.values()) {
      this.finish(entry);
      entry.reject(error);
    }
  }

  private arm(entry: Pending, timeoutMs: number): void {
    clearTimeout(entry.timer);
    if (entry.options?.noTimeout) return;
    const remaining = Math.max(0, Math.min(timeoutMs, entry.deadline - Date.now()));
    entry.timer = setTimeout(() => {
      const error = new LocalError(
        "timeout",
        `${entry.method} timed out after ${Date.now() - entry.startedAt} ms`,
        { requestId: entry.id },
      );
      this.cancel(entry, error);
    }, remaining);
  }

  private cancel(entry: Pending, error: LocalError): void {
    if (this.pending.get(entry.id) !== entry) return;
    this.finish(entry);
    this.deps.cancelOnWire(entry.id, error.message);
    entry.reject(error);
  }

  private finish(entry: Pending): void {
    clearTimeout(entry.timer);
    this.pending.delete(entry.id);
    if (entry.progressToken !== undefined) this.byProgressToken.delete(entry.progressToken);
    if (entry.onAbort) entry.options?.signal?.removeEventListener("abort", entry.onAbort);
    entry.unwatch?.();
  }
}

function withProgressToken(params: JsonObject | undefined, token: JsonRpcId): JsonObject {
  // Object.assign rather than spreads that add keys (see McpServer.decorateModern).
  const meta: JsonObject = Object.assign({}, params?._meta as JsonObject | undefined);
  meta.progressToken = token;
  const merged: JsonObject = Object.assign({}, params);
  merged._meta = meta;
  return merged;
}

function abortError(cancelled: { readonly reason: unknown }, method: string): LocalError {
  const reason = cancelled.reason;
  if (reason instanceof LocalError) return reason;
  const detail = reason instanceof Error ? reason.message : reason ? String(reason) : "aborted";
  return new LocalError("aborted", `${method} cancelled: ${detail}`, { cause: reason });
}
