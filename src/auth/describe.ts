/**
 * Turns a failure inside an OAuth step into an AuthorizationError whose message a person can
 * read and that holds no secret: oauth4webapi's own messages are fixed sentences; from the
 * server we keep its `error` code and a short, sanitized `error_description`; the cause (which
 * may hold request parameters, codes or tokens) is not attached.
 */
import * as oauth from "oauth4webapi";
import { printableLine } from "../text/printable.js";
import { AuthorizationError, type AuthorizationStep } from "../transports/http/client/auth.js";
import { jsonObjectIn } from "./http.js";

const MAX_DESCRIPTION = 200;

export function authorizationFailure(step: AuthorizationStep, error: unknown): AuthorizationError {
  if (error instanceof AuthorizationError) return error;
  const code =
    error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError
      ? printableLine(error.error).slice(0, 64)
      : undefined;
  return new AuthorizationError(step, reasonOf(error), code);
}

/**
 * authorizationFailure, reading the error code of a 401 that came with a challenge (RFC 6749
 * §5.2: a client that authenticated with the Authorization header gets `WWW-Authenticate`):
 * from the challenge's `error`, else from the JSON body, which oauth4webapi left unread.
 */
export async function answeredFailure(
  step: AuthorizationStep,
  error: unknown,
): Promise<AuthorizationError> {
  if (!(error instanceof oauth.WWWAuthenticateChallengeError)) {
    return authorizationFailure(step, error);
  }
  const parameters = error.cause.find((c) => typeof c.parameters.error === "string")?.parameters;
  const body =
    parameters === undefined
      ? await jsonObjectIn(error.response).catch(() => undefined)
      : undefined;
  const code = parameters?.error ?? body?.error;
  if (typeof code !== "string") return authorizationFailure(step, error);
  const description = parameters?.error_description ?? body?.error_description;
  return new AuthorizationError(
    step,
    `the server answered HTTP ${error.status} ${serverError(code, typeof description === "string" ? description : undefined)}`,
    printableLine(code).slice(0, 64),
  );
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

/** What the codes that leave a person stuck mean (RFC 6749 §5.2). */
const MEANING: Record<string, string> = {
  invalid_client: "the client id or its credentials are not accepted",
};

function serverError(code: string, description: string | undefined): string {
  const meaning = Object.hasOwn(MEANING, code) ? `: ${MEANING[code]}` : "";
  const codeText = `${printableLine(code).slice(0, 64)}${meaning}`;
  if (!description) return codeText;
  return `${codeText} (${printableLine(description).slice(0, MAX_DESCRIPTION)})`;
}
