import type { JsonRpcErrorObject, JsonRpcId } from "./types.js";

/** Standard JSON-RPC 2.0 codes and the MCP-specific ones. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Legacy (2025-11-25 and earlier) "resource not found"; modern servers use -32602. */
  ResourceNotFound: -32002,
  /** Streamable HTTP: a mirrored header disagrees with the body. */
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * An error that travels on the wire: either received from the peer in an error response, or
 * raised by a handler to be sent as one. It always carries a JSON-RPC code.
 */
export class JsonRpcError extends Error {
  override name = "JsonRpcError";
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }

  /** The error object for a JSON-RPC error response. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** Rebuilds the most specific class for an error object received from the peer. */
  static fromObject(error: JsonRpcErrorObject): JsonRpcError {
    const data = error.data as Record<string, unknown> | undefined;
    switch (error.code) {
      case ErrorCode.UnsupportedProtocolVersion:
        return new UnsupportedProtocolVersionError(
          Array.isArray(data?.supported) ? (data.supported as string[]) : [],
          typeof data?.requested === "string" ? data.requested : undefined,
          error.message,
          error.data,
        );
      case ErrorCode.MissingRequiredClientCapability:
        return new MissingRequiredClientCapabilityError(
          isPlainObject(data?.requiredCapabilities) ? data.requiredCapabilities : {},
          error.message,
          error.data,
        );
      case ErrorCode.HeaderMismatch:
        return new HeaderMismatchError(error.message, error.data);
      default:
        return new JsonRpcError(error.code, error.message, error.data);
    }
  }
}

export class ParseError extends JsonRpcError {
  override name = "ParseError";
  constructor(message = "Parse error", data?: unknown) {
    super(ErrorCode.ParseError, message, data);
  }
}

export class InvalidRequestError extends JsonRpcError {
  override name = "InvalidRequestError";
  constructor(message = "Invalid request", data?: unknown) {
    super(ErrorCode.InvalidRequest, message, data);
  }
}

export class MethodNotFoundError extends JsonRpcError {
  override name = "MethodNotFoundError";
  constructor(method: string, message = `Method not found: ${method}`) {
    super(ErrorCode.MethodNotFound, message, { method });
  }
}

export class InvalidParamsError extends JsonRpcError {
  override name = "InvalidParamsError";
  constructor(message = "Invalid params", data?: unknown) {
    super(ErrorCode.InvalidParams, message, data);
  }
}

export class InternalError extends JsonRpcError {
  override name = "InternalError";
  constructor(message = "Internal error", data?: unknown) {
    super(ErrorCode.InternalError, message, data);
  }
}

export class HeaderMismatchError extends JsonRpcError {
  override name = "HeaderMismatchError";
  constructor(message = "Header mismatch", data?: unknown) {
    super(ErrorCode.HeaderMismatch, message, data);
  }
}

export class MissingRequiredClientCapabilityError extends JsonRpcError {
  override name = "MissingRequiredClientCapabilityError";
  readonly requiredCapabilities: Record<string, unknown>;
  constructor(
    requiredCapabilities: Record<string, unknown>,
    message = `Missing required client capabilities: ${Object.keys(requiredCapabilities).join(", ")}`,
    data: unknown = { requiredCapabilities },
  ) {
    super(ErrorCode.MissingRequiredClientCapability, message, data);
    this.requiredCapabilities = requiredCapabilities;
  }
}

export class UnsupportedProtocolVersionError extends JsonRpcError {
  override name = "UnsupportedProtocolVersionError";
  readonly supported: string[];
  readonly requested: string | undefined;
  constructor(
    supported: string[],
    requested: string | undefined,
    message = `Unsupported protocol version${requested ? ` ${requested}` : ""}; supported: ${supported.join(", ")}`,
    data: unknown = requested === undefined ? { supported } : { supported, requested },
  ) {
    super(ErrorCode.UnsupportedProtocolVersion, message, data);
    this.supported = supported;
    this.requested = requested;
  }
}

/** Why a local failure happened. None of these ever came from the peer. */
export type LocalErrorKind =
  | "timeout"
  | "closed"
  | "exited"
  | "aborted"
  | "overloaded"
  | "transport"
  /** Authorization failed on this side (OAuth discovery, registration, token, …). */
  | "auth";

/**
 * A failure on this side of the wire: a timeout, a closed transport, an exited process, a
 * cancellation. Deliberately not a JsonRpcError, so it can never be mistaken for a peer's reply.
 */
export class LocalError extends Error {
  override name = "LocalError";
  readonly kind: LocalErrorKind;
  /** For requests: the id of the request that failed locally. */
  readonly requestId: JsonRpcId | undefined;
  /**
   * Set when the peer caused this (a reply to an unknown id, an unreadable message, a stream it
   * does not read): the kind of event, from a fixed set, under which logs throttle repeats.
   */
  readonly peerFault: string | undefined;

  constructor(
    kind: LocalErrorKind,
    message: string,
    options?: { cause?: unknown; requestId?: JsonRpcId; peerFault?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.requestId = options?.requestId;
    this.peerFault = options?.peerFault;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
