import { ErrorCode, JsonRpcError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type { Era } from "../protocol/versions.js";

/**
 * A modern server answered with `resultType: "input_required"` and this client cannot answer
 * it: no handler for what it asked (the reason names it), or a method outside the multi
 * round-trip loop. Not a JsonRpcError: the server did not fail, it asked a question.
 */
export class InputRequiredError extends Error {
  override name = "InputRequiredError";
  readonly method: string;
  /** The InputRequiredResult as received (inputRequests, requestState). */
  readonly result: JsonObject;

  constructor(method: string, result: JsonObject, reason?: string) {
    super(
      `${method}: server asked for input; multi round-trip support not enabled` +
        (reason === undefined ? "" : ` (${reason})`),
    );
    this.method = method;
    this.result = result;
  }
}

/** A result the spec does not allow (an unknown resultType, a malformed handshake reply). */
export class InvalidResultError extends Error {
  override name = "InvalidResultError";
  readonly method: string;
  readonly result: JsonObject;

  constructor(method: string, result: JsonObject, message: string) {
    super(`${method}: ${message}`);
    this.method = method;
    this.result = result;
  }
}

/**
 * Turns a raw result into the final one, or throws. The multi round-trip loop (mrtr.ts) runs
 * before this; an input_required reaching here is one the client does not answer. Legacy
 * results carry no resultType and pass as is.
 */
export function completeResult(era: Era, method: string, result: JsonObject): JsonObject {
  if (era === "legacy") return result;
  const type = result.resultType;
  // Absent means a server of an earlier revision: complete, as the schema says.
  if (type === undefined || type === "complete") return result;
  if (type === "input_required") throw new InputRequiredError(method, result);
  throw new InvalidResultError(method, result, `unknown resultType ${JSON.stringify(type)}`);
}

/**
 * Whether an error is the server saying a resource does not exist: -32602 with `data.uri`
 * (2026-07-28) or -32002 (earlier revisions). Widely deployed servers (the TypeScript SDK 1.x)
 * send -32602 "Resource ... not found" without data, so that message counts too.
 */
export function isResourceNotFound(error: unknown): error is JsonRpcError {
  if (!(error instanceof JsonRpcError)) return false;
  if (error.code === ErrorCode.ResourceNotFound) return true;
  if (error.code !== ErrorCode.InvalidParams) return false;
  const data = error.data;
  if (typeof data === "object" && data !== null && typeof (data as JsonObject).uri === "string") {
    return true;
  }
  return /\bnot found\b/i.test(error.message);
}
