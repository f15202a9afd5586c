import { ErrorCode, InvalidRequestError, isPlainObject, ParseError } from "./errors.js";
import type { JsonRpcId, JsonRpcMessage } from "./types.js";

/** A value that could not be read as a JSON-RPC message, with the error to answer it with. */
export interface ClassifyFailure {
  ok: false;
  error: ParseError | InvalidRequestError;
  /** The request id, when the value was a request whose id could be read; null otherwise. */
  id: JsonRpcId | null;
}

export interface ClassifySuccess {
  ok: true;
  message: JsonRpcMessage;
}

export type ClassifyResult = ClassifySuccess | ClassifyFailure;

export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

function invalid(reason: string, id: JsonRpcId | null = null): ClassifyFailure {
  return { ok: false, error: new InvalidRequestError(`Invalid request: ${reason}`), id };
}

/**
 * Checks that a parsed JSON value is one JSON-RPC 2.0 message as MCP allows it. Hand-written
 * guards, no schema: this runs on every message. The value itself is returned (not copied).
 */
export function classify(value: unknown): ClassifyResult {
  if (Array.isArray(value)) return invalid("batches are not supported");
  if (!isPlainObject(value)) return invalid("a message must be a JSON object");
  if (value.jsonrpc !== "2.0") return invalid('"jsonrpc" must be "2.0"', readableId(value));

  const hasId = "id" in value;
  const id = value.id;
  if ("method" in value) {
    if (typeof value.method !== "string" || value.method === "") {
      return invalid('"method" must be a non-empty string', readableId(value));
    }
    if (hasId && !isJsonRpcId(id)) return invalid('"id" must be a string or an integer');
    if ("params" in value && !isPlainObject(value.params)) {
      return invalid('"params" must be an object', readableId(value));
    }
    if ("result" in value || "error" in value) {
      return invalid("a request cannot carry result or error", readableId(value));
    }
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }

  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (hasResult === hasError) {
    return invalid("a response needs exactly one of result and error", readableId(value));
  }
  if (hasResult) {
    if (!isJsonRpcId(id)) return invalid('a result response needs a string or integer "id"');
    if (!isPlainObject(value.result)) return invalid('"result" must be an object', id);
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }
  if (id !== null && !isJsonRpcId(id)) {
    return invalid('an error response needs a string, integer or null "id"');
  }
  const error = value.error;
  if (
    !isPlainObject(error) ||
    typeof error.code !== "number" ||
    !Number.isInteger(error.code) ||
    typeof error.message !== "string"
  ) {
    return invalid('"error" must have an integer "code" and a string "message"', id);
  }
  return { ok: true, message: value as unknown as JsonRpcMessage };
}

function readableId(value: Record<string, unknown>): JsonRpcId | null {
  return isJsonRpcId(value.id) ? value.id : null;
}

/** Parses one JSON text and classifies it. Never throws. */
export function parseMessage(text: string): ClassifyResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return { ok: false, error: new ParseError(`Parse error: ${detail}`), id: null };
  }
  return classify(value);
}

/** The error response a server sends for a value it could not classify. */
export function errorResponseFor(failure: ClassifyFailure) {
  return {
    jsonrpc: "2.0" as const,
    id: failure.id,
    error: failure.error.toJSON(),
  };
}

export { ErrorCode };
