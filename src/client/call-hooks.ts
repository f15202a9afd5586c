import type { JsonObject } from "../jsonrpc/types.js";
import type { ServerCapabilities } from "../protocol/mcp-types.js";
import type { Era } from "../protocol/versions.js";
import type { CallOptions, ClientHandlers } from "./types.js";

/**
 * An extension's part in the requests the client sends (the tasks extension: 2025-11-25 task
 * augmentation, and driving a task to its result). A client extension brings one as `calls`.
 * Both steps run for every request, so each answers undefined, without awaiting, when it has
 * nothing to do.
 */
export interface ClientCallHook {
  /** Before the request goes out: undefined to send it as it is, else what to change. */
  prepare?(call: OutgoingCall): PreparedCall | Promise<PreparedCall | undefined> | undefined;
  /**
   * The result, once any multi round-trip rounds are done: undefined to leave it, else what
   * the caller gets instead. A replaced result is never cached.
   */
  finish?(
    result: JsonObject,
    call: OutgoingCall,
    prepared: PreparedCall | undefined,
  ): FinishedCall | Promise<FinishedCall> | undefined;
}

/** One request as a ClientCallHook sees it. */
export interface OutgoingCall {
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly options: CallOptions;
  readonly era: Era;
  /** This handshake's server capabilities (a new handshake brings a new object). */
  readonly serverCapabilities: ServerCapabilities;
  /** The client's handlers for the server's requests (input rounds inside a task). */
  readonly handlers: ClientHandlers;
}

export interface PreparedCall {
  /** The params to send instead. */
  readonly params?: JsonObject;
  /** Send without the caller's signal: an abort is then the hook's to carry out in finish(). */
  readonly detached?: boolean;
}

export interface FinishedCall {
  readonly result: JsonObject;
  /** Returned to the caller as it is, not checked as a complete result (a task handle). */
  readonly asIs?: boolean;
}
