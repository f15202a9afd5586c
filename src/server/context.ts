import {
  ErrorCode,
  JsonRpcError,
  MissingRequiredClientCapabilityError,
} from "../jsonrpc/errors.js";
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
  /** Throws -32021 (MissingRequiredClientCapability) unless the client declared all of these. */
  requireClientCapabilities(required: Record<string, JsonObject>): void;
  /** Asks the user through the client (`elicitation/create`). */
  elicit(params: JsonObject): Promise<JsonObject>;
  /** Asks the client's model (`sampling/createMessage`). */
  sample(params: JsonObject): Promise<JsonObject>;
  /** Asks for the client's roots (`roots/list`). */
  listRoots(): Promise<JsonObject>;
}

/** The client capability each server-to-client request needs. */
const CAPABILITY_FOR = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
} as const;

export type ClientRequestMethod = keyof typeof CAPABILITY_FOR;

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
  /**
   * Sends a request to the client on behalf of this request: a real server-to-client request
   * on legacy connections. Absent where the era has no such channel (modern: multi round-trip
   * requests take that role).
   */
  requestClient?(method: ClientRequestMethod, params: JsonObject): Promise<JsonObject>;
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
  const requireClientCapabilities = (required: Record<string, JsonObject>) => {
    const missing: Record<string, JsonObject> = {};
    for (const [name, value] of Object.entries(required)) {
      if (inputs.clientCapabilities[name] === undefined) missing[name] = value;
    }
    if (Object.keys(missing).length > 0) throw new MissingRequiredClientCapabilityError(missing);
  };
  const askClient = (method: ClientRequestMethod, params: JsonObject) => {
    requireClientCapabilities({ [CAPABILITY_FOR[method]]: {} });
    if (!inputs.requestClient) {
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `${method} from a handler needs multi round-trip support on ${inputs.era} connections`,
      );
    }
    return inputs.requestClient(method, params);
  };
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
    requireClientCapabilities,
    elicit: (params) => askClient("elicitation/create", params),
    sample: (params) => askClient("sampling/createMessage", params),
    listRoots: () => askClient("roots/list", {}),
    progress(progress, total, message) {
      if (!hasToken) return Promise.resolve();
      const params: JsonObject = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      return inputs.notify("notifications/progress", params);
    },
  };
}
