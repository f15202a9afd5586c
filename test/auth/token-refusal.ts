/** What a client sees when the token endpoint refused its grant. */
import assert from "node:assert/strict";
import { AuthorizationError } from "../../src/auth/index.js";

/**
 * Asserts that `failure` (a connect's rejection, or its cause) is an AuthorizationError of the
 * token step with the server's `invalid_grant`, whose message does not hold `secret`.
 */
export function assertTokenRefusal(failure: unknown, secret: string): void {
  const error = failure instanceof AuthorizationError ? failure : (failure as Error)?.cause;
  assert.ok(error instanceof AuthorizationError, String(failure));
  assert.equal(error.step, "token");
  assert.equal(error.serverError, "invalid_grant");
  assert.ok(!error.message.includes(secret));
}
