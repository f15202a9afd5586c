/**
 * The device authorization grant (RFC 8628) through oauth4webapi, for a user whose browser is on
 * another machine: ask the authorization server for a device code, show the user the
 * verification URI and the user code, then poll the token endpoint every `interval` seconds
 * (5 more after each `slow_down`) until the user approved, denied, or the code expired.
 */
import * as oauth from "oauth4webapi";
import { AuthorizationError } from "../transports/http/client/auth.js";
import { authorizationFailure } from "./describe.js";
import { type GrantContext, sendsCredentials, tokenRequest } from "./grants.js";

export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** What the user needs: where to go and the code to type there. */
export interface DeviceCodePrompt {
  readonly verificationUri: string;
  /** The same URI with the code in it, when the server gives one. */
  readonly verificationUriComplete?: string;
  readonly userCode: string;
  /** Seconds the code stays valid. */
  readonly expiresIn: number;
}

export interface DeviceCodeOptions {
  /** Shows the prompt to the user (the server's words: make them printable). */
  show(prompt: DeviceCodePrompt): void;
  /** Stops polling (Ctrl-C). */
  signal?: AbortSignal;
}

const SLOW_DOWN_MS = 5_000;

export async function deviceCodeGrant(
  context: GrantContext,
  scopes: readonly string[],
  options: DeviceCodeOptions,
): Promise<oauth.TokenEndpointResponse> {
  const { http, as, identity, resource } = context;
  const endpoint = as.device_authorization_endpoint;
  if (endpoint === undefined) {
    throw new AuthorizationError(
      "authorize",
      `${as.issuer} offers no device authorization (device_authorization_endpoint)`,
    );
  }
  const parameters: Record<string, string> = { resource };
  if (scopes.length > 0) parameters.scope = scopes.join(" ");
  let device: oauth.DeviceAuthorizationResponse;
  try {
    const response = await oauth.deviceAuthorizationRequest(
      as,
      identity.client,
      identity.authentication,
      parameters,
      sendsCredentials(identity)
        ? http.credentialOptions(
            endpoint,
            as.issuer,
            "authorize",
            "the device authorization endpoint",
          )
        : http.options(endpoint, "authorize", "the device authorization endpoint"),
    );
    device = await oauth.processDeviceAuthorizationResponse(as, identity.client, response);
  } catch (error) {
    throw authorizationFailure("authorize", error);
  }
  options.show({
    verificationUri: device.verification_uri,
    ...(device.verification_uri_complete === undefined
      ? {}
      : { verificationUriComplete: device.verification_uri_complete }),
    userCode: device.user_code,
    expiresIn: device.expires_in,
  });
  let intervalMs = (device.interval ?? 5) * 1000;
  const deadline = Date.now() + device.expires_in * 1000;
  for (;;) {
    await pause(intervalMs, options.signal);
    if (Date.now() > deadline) throw expired();
    try {
      return await tokenRequest(
        context,
        "token",
        (request) =>
          oauth.deviceCodeGrantRequest(
            as,
            identity.client,
            identity.authentication,
            device.device_code,
            { ...request, additionalParameters: { resource } },
          ),
        (response) => oauth.processDeviceCodeResponse(as, identity.client, response),
      );
    } catch (error) {
      const code = error instanceof AuthorizationError ? error.serverError : undefined;
      if (code === "authorization_pending") continue;
      if (code === "slow_down") {
        intervalMs += SLOW_DOWN_MS;
        continue;
      }
      if (code === "expired_token") throw expired();
      if (code === "access_denied") {
        throw new AuthorizationError("authorize", "the authorization was denied", code);
      }
      throw error;
    }
  }
}

function expired(): AuthorizationError {
  return new AuthorizationError(
    "authorize",
    "the device code expired before it was approved",
    "expired_token",
  );
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(stopped());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(stopped());
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}

function stopped(): AuthorizationError {
  return new AuthorizationError("authorize", "stopped while waiting for the device authorization");
}
