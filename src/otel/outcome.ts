/**
 * How an operation ended, in the conventions' terms: an error reply sets `error.type` and
 * `rpc.response.status_code` to its JSON-RPC code and the span status to ERROR with the error's
 * message; a tool result with `isError` is a `tool_error`; a local failure (timeout, closed
 * channel, cancellation) is its kind. Success sets nothing: the status stays UNSET.
 */
import { type Attributes, SpanStatusCode } from "@opentelemetry/api";
import { ErrorCode, JsonRpcError, LocalError } from "../jsonrpc/errors.js";
import { ATTR, ERROR_TYPE } from "./conventions.js";

export interface Outcome {
  /** Added to the span and the duration metric; empty on success. */
  attributes: Attributes;
  /** ERROR with a description, or undefined to leave the status UNSET. */
  status?: { code: SpanStatusCode.ERROR; message?: string };
}

const SUCCESS: Outcome = Object.freeze({ attributes: Object.freeze({}) }) as Outcome;

/** The outcome of a result a handler returned or a peer replied with. */
export function resultOutcome(method: string, result: unknown): Outcome {
  if (
    method === "tools/call" &&
    typeof result === "object" &&
    result !== null &&
    (result as { isError?: unknown }).isError === true
  ) {
    return {
      attributes: { [ATTR.errorType]: ERROR_TYPE.toolError },
      status: { code: SpanStatusCode.ERROR },
    };
  }
  return SUCCESS;
}

/**
 * The outcome of a thrown error or an error reply. On the server, any other throw is answered
 * with -32603 (Internal error) and its text never leaves the process, so the span records that
 * code and no description; on the client it is `_OTHER`.
 */
export function errorOutcome(error: unknown, side: "client" | "server"): Outcome {
  if (error instanceof JsonRpcError) {
    const code = String(error.code);
    return {
      attributes: { [ATTR.errorType]: code, [ATTR.responseStatusCode]: code },
      status: { code: SpanStatusCode.ERROR, message: error.message },
    };
  }
  if (error instanceof LocalError) {
    return {
      attributes: { [ATTR.errorType]: error.kind },
      status: { code: SpanStatusCode.ERROR, message: error.message },
    };
  }
  if (side === "server") {
    const code = String(ErrorCode.InternalError);
    return {
      attributes: { [ATTR.errorType]: code, [ATTR.responseStatusCode]: code },
      status: { code: SpanStatusCode.ERROR },
    };
  }
  return {
    attributes: { [ATTR.errorType]: ERROR_TYPE.other },
    status: { code: SpanStatusCode.ERROR },
  };
}
