import type { JsonObject, JsonRpcId } from "../jsonrpc/types.js";
import type { ClientCapabilities, Implementation, LoggingLevel } from "../protocol/mcp-types.js";
import { LOGGING_LEVELS } from "../protocol/mcp-types.js";
import type { Era } from "../protocol/versions.js";

export type LogFunction = (data: unknown, logger?: string) => Promise<void>;
export type RequestLogger = Record<LoggingLevel, LogFunction>;

/** Everything a tool, resource, prompt or completion handler may know about its request. */
export interface HandlerContext {
  requestId: JsonRpcId;
  method: string;
  /** Aborted when the client cancels, disconnects, or the server shuts down. */
  signal: AbortSignal;
  era: Era;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  /** Whoever the transport authenticated (HTTP auth), if anyone. */
  principal: unknown;
  /** The request's `_meta`, as sent. */
  meta: JsonObject;
  /** Reports progress when the client asked for it (a progressToken); otherwise does nothing. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Request-scoped log: sent only at or above the level this request (or legacy session) asked for. */
  log: RequestLogger;
}

export interface ContextInputs {
  requestId: JsonRpcId;
  method: string;
  signal: AbortSignal;
  era: Era;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  principal: unknown;
  meta: JsonObject;
  /** Minimum level to emit, or undefined to emit no logs at all. */
  logLevel: LoggingLevel | undefined;
  notify(method: string, params: JsonObject): Promise<void>;
}

export function createHandlerContext(inputs: ContextInputs): HandlerContext {
  const token = inputs.meta.progressToken;
  const hasToken = typeof token === "string" || typeof token === "number";
  const threshold =
    inputs.logLevel === undefined
      ? Number.POSITIVE_INFINITY
      : LOGGING_LEVELS.indexOf(inputs.logLevel);
  const log = {} as RequestLogger;
  for (const [rank, level] of LOGGING_LEVELS.entries()) {
    log[level] = (data, logger) => {
      if (rank < threshold) return Promise.resolve();
      const params: JsonObject = { level, data };
      if (logger !== undefined) params.logger = logger;
      return inputs.notify("notifications/message", params);
    };
  }
  return {
    requestId: inputs.requestId,
    method: inputs.method,
    signal: inputs.signal,
    era: inputs.era,
    protocolVersion: inputs.protocolVersion,
    clientCapabilities: inputs.clientCapabilities,
    clientInfo: inputs.clientInfo,
    principal: inputs.principal,
    meta: inputs.meta,
    log,
    progress(progress, total, message) {
      if (!hasToken) return Promise.resolve();
      const params: JsonObject = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      return inputs.notify("notifications/progress", params);
    },
  };
}
