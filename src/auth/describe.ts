/**
 * Turns a failure inside an OAuth step into an AuthorizationError whose message a person can
 * read and that holds no secret: oauth4webapi's own messages are fixed sentences; from the
 * server we keep its `error` code and a short, sanitized `error_description`; the cause (which
 * may hold request parameters, codes or tokens) is not attached.
 */
import * as oauth from "oauth4webapi";
import { printableLine } from "../text/printable.js";
import { AuthorizationError, type AuthorizationStep } from "../transports/http/client/auth.js";

const MAX_DESCRIPTION = 200;

export function authorizationFailure(step: AuthorizationStep, error: unknown): AuthorizationError {
  if (error instanceof AuthorizationError) return error;
  const code =
    error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError
      ? printableLine(error.error).slice(0, 64)
      : undefined;
  return new AuthorizationError(step, reasonOf(error), code);
}

function reasonOf(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) {
    return `the server answered HTTP ${error.status} ${serverError(error.error, error.error_description)}`;
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    return `the authorization server refused: ${serverError(error.error, error.error_description)}`;
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    return `the server answered HTTP ${error.status} with a challenge`;
  }
  if (error instanceof oauth.OperationProcessingError) return error.message;
  if (error instanceof Error && error.name === "TimeoutError") return "the request timed out";
  if (error instanceof TypeError) return `the request failed (${printableLine(error.message)})`;
  if (error instanceof Error) return printableLine(error.message).slice(0, MAX_DESCRIPTION);
  return "unknown failure";
}

function serverError(code: string, description: string | undefined): string {
  const codeText = printableLine(code).slice(0, 64);
  if (!description) return codeText;
  return `${codeText} (${printableLine(description).slice(0, MAX_DESCRIPTION)})`;
}
