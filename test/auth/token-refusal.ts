/** What a client sees when the token endpoint refused its grant. */
import assert from "node:assert/strict";
import { AuthorizationError, type OAuthClient } from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/index.js";

/** The AuthorizationError a connect to `url` with `auth` fails with (asserted to be one). */
export async function connectFailure(url: string, auth: OAuthClient): Promise<AuthorizationError> {
  const client = new McpClient({ clientInfo: { name: "refused", version: "1.0.0" } });
  const failure = await client
    .connect(new HttpClientTransport(url, { auth, flavourCache: new Map() }))
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  await client.close();
  const error = failure instanceof AuthorizationError ? failure : (failure as Error)?.cause;
  assert.ok(error instanceof AuthorizationError, String(failure));
  return error;
}

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
