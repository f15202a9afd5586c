/**
 * Who we are at an authorization server (2026-07-28 basic/authorization/client-registration.mdx),
 * in the spec's order: pre-registered credentials, else a Client ID Metadata Document URL when
 * the server supports those, else Dynamic Client Registration (RFC 7591, with
 * `application_type`). Registrations are stored per issuer, so a server that moved to another
 * authorization server gets a fresh registration there and the old credentials never travel; a
 * metadata document URL in use is stored there too, so that the tokens it obtained can later be
 * refreshed and revoked as the same client without the option.
 * The token endpoint authentication method is one the server advertises, never a guess.
 */
import * as oauth from "oauth4webapi";
import { base64, utf8 } from "../platform/bytes.js";
import { printableLine } from "../text/printable.js";
import { AuthorizationError } from "../transports/http/client/auth.js";
import { authorizationFailure } from "./describe.js";
import { type AuthHttp, jsonObjectIn } from "./http.js";
import type { PrivateKey } from "./private-key.js";
import type { StoredClient, TokenStore } from "./token-store.js";

export interface ClientIdentityOptions {
  /** A pre-registered client. */
  clientId?: string;
  clientSecret?: string;
  /**
   * The authorization server (its issuer) the pre-registered client belongs to: its credentials
   * go to no other (2026-07-28 client registration), and where a server lists several, this one
   * is chosen. Required with a client secret, a private key or a JWT bearer assertion. A function
   * decides per issuer, before anything is sent there (`firstIssuer()`: the first one asked; it
   * may throw an AuthorizationError to say why not).
   */
  clientIssuer?: string | ((issuer: string) => boolean | Promise<boolean>);
  /** For private_key_jwt: the client's private key (a CryptoKey from jose's import functions). */
  privateKey?: PrivateKey;
  /** The `kid` to put in client assertions. */
  keyId?: string;
  /** An https URL whose document describes this client (used when the server supports it). */
  clientMetadataUrl?: string;
  /** For registration. Default "mcpwire". */
  clientName?: string;
  /** For registration. Default "native" (a CLI or desktop app with a loopback redirect). */
  applicationType?: "native" | "web";
}

export interface ClientIdentity {
  readonly client: oauth.Client;
  readonly authentication: oauth.ClientAuth;
  readonly method: string;
  readonly source: "pre-registered" | "metadata-document" | "registered";
}

export interface IdentityRequest {
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly string[];
}

const METHODS_WITH_SECRET = ["client_secret_basic", "client_secret_post"];

export async function clientIdentity(
  http: AuthHttp,
  store: TokenStore,
  as: oauth.AuthorizationServer,
  options: ClientIdentityOptions,
  request: IdentityRequest,
): Promise<ClientIdentity> {
  const known = await knownClientIdentity(store, as, options);
  if (known?.source === "metadata-document") {
    await keepMetadataDocument(store, as.issuer, known.client.client_id);
  }
  if (known !== undefined) return known;
  if (as.registration_endpoint === undefined) {
    throw new AuthorizationError(
      "registration",
      `${as.issuer} offers neither client ID metadata documents (or none was configured) nor dynamic registration: configure a pre-registered client id`,
    );
  }
  const registered = await register(http, as, options, request);
  await store.setClient(as.issuer, registered);
  return identityFor(as, options, "registered", registered);
}

/**
 * Who we already are at `as` (pre-registered, metadata document, or a registration in the
 * store), without registering: undefined when we are nobody there yet.
 */
export async function knownClientIdentity(
  store: TokenStore,
  as: oauth.AuthorizationServer,
  options: ClientIdentityOptions,
): Promise<ClientIdentity | undefined> {
  if (options.clientId !== undefined) {
    if (!(await bindingAllows(options, as.issuer))) throw notBound(options, [as.issuer]);
    return identityFor(as, options, "pre-registered", {
      clientId: options.clientId,
      ...(options.clientSecret === undefined ? {} : { clientSecret: options.clientSecret }),
    });
  }
  if (
    options.clientMetadataUrl !== undefined &&
    as.client_id_metadata_document_supported === true
  ) {
    checkMetadataUrl(options.clientMetadataUrl);
    return identityFor(as, options, "metadata-document", { clientId: options.clientMetadataUrl });
  }
  const stored = await store.getClient(as.issuer);
  if (stored === undefined || expired(stored)) return undefined;
  const source = stored.source ?? "registered";
  if (source === "metadata-document") {
    // Only while the server still takes metadata documents.
    if (as.client_id_metadata_document_supported !== true) return undefined;
    checkMetadataUrl(stored.clientId);
  }
  return identityFor(as, options, source, stored);
}

/** Whether the pre-registered client (if any) may be used at `issuer`. */
async function bindingAllows(options: ClientIdentityOptions, issuer: string): Promise<boolean> {
  const binding = options.clientIssuer;
  if (options.clientId === undefined || binding === undefined) return true;
  return typeof binding === "string" ? binding === issuer : (await binding(issuer)) === true;
}

/**
 * Of the authorization servers a resource lists (RFC 9728 leaves the choice to the client), the
 * first the pre-registered client may use; asked before anything is sent to any of them. With
 * none, the binding function's own explanation (an AuthorizationError it threw), else ours.
 */
export async function chooseIssuer(
  options: ClientIdentityOptions,
  issuers: readonly string[],
): Promise<string> {
  let refusal: AuthorizationError | undefined;
  for (const issuer of issuers) {
    try {
      if (await bindingAllows(options, issuer)) return issuer;
    } catch (error) {
      if (!(error instanceof AuthorizationError)) throw error;
      refusal ??= error;
    }
  }
  throw refusal ?? notBound(options, issuers);
}

function notBound(options: ClientIdentityOptions, issuers: readonly string[]): AuthorizationError {
  const bound = typeof options.clientIssuer === "string" ? options.clientIssuer : "another one";
  return new AuthorizationError(
    "registration",
    `the pre-registered client ${printableLine(options.clientId ?? "")} belongs to ${printableLine(bound)}, and the server uses ${printableLine(issuers.join(" or "))}: nothing was sent there`,
  );
}

/** Binds to the first issuer it is asked about, in memory (the CLI records its choice). */
export function firstIssuer(): (issuer: string) => boolean {
  let bound: string | undefined;
  return (issuer) => {
    bound ??= issuer;
    return bound === issuer;
  };
}

/** Stores the metadata document URL as the issuer's client, unless it is already. */
async function keepMetadataDocument(
  store: TokenStore,
  issuer: string,
  clientId: string,
): Promise<void> {
  const stored = await store.getClient(issuer);
  if (stored?.clientId === clientId && stored.source === "metadata-document") return;
  await store.setClient(issuer, { clientId, source: "metadata-document" });
}

async function register(
  http: AuthHttp,
  as: oauth.AuthorizationServer,
  options: ClientIdentityOptions,
  request: IdentityRequest,
): Promise<StoredClient> {
  const advertised = as.token_endpoint_auth_methods_supported;
  // A public client where the server allows one; otherwise the first secret method it offers.
  const method =
    advertised === undefined || advertised.includes("none")
      ? "none"
      : (METHODS_WITH_SECRET.find((m) => advertised.includes(m)) ?? "none");
  try {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: options.clientName ?? "mcpwire",
        redirect_uris: [...request.redirectUris],
        grant_types: [...request.grantTypes],
        response_types: request.grantTypes.includes("authorization_code") ? ["code"] : [],
        token_endpoint_auth_method: method,
        application_type: options.applicationType ?? "native",
      },
      http.options(as.registration_endpoint, "registration", "the registration endpoint"),
    );
    const client = await oauth.processDynamicClientRegistrationResponse(
      await withSecretExpiry(response),
    );
    const secret = typeof client.client_secret === "string" ? client.client_secret : undefined;
    const expiresAt = client.client_secret_expires_at;
    return {
      clientId: client.client_id,
      ...(secret === undefined ? {} : { clientSecret: secret }),
      ...(typeof client.token_endpoint_auth_method === "string"
        ? { tokenEndpointAuthMethod: client.token_endpoint_auth_method }
        : {}),
      ...(typeof expiresAt === "number" ? { clientSecretExpiresAt: expiresAt } : {}),
    };
  } catch (error) {
    throw authorizationFailure("registration", error);
  }
}

/**
 * RFC 7591 §3.2.1 requires `client_secret_expires_at` with a secret, and oauth4webapi insists;
 * servers in the wild (the conformance mocks too) leave it out. Absent is read as 0: the secret
 * does not expire (if it has, the token endpoint says so and we register again).
 */
async function withSecretExpiry(response: Response): Promise<Response> {
  if (response.status !== 200 && response.status !== 201) return response;
  const body = await jsonObjectIn(response);
  if (!body) return new Response("not a JSON object", { status: 502 });
  if (typeof body.client_secret === "string" && body.client_secret_expires_at === undefined) {
    body.client_secret_expires_at = 0;
  }
  return Response.json(body, { status: response.status });
}

function identityFor(
  as: oauth.AuthorizationServer,
  options: ClientIdentityOptions,
  source: ClientIdentity["source"],
  stored: StoredClient,
): ClientIdentity {
  const method = chooseMethod(as, stored, options.privateKey !== undefined);
  const client: oauth.Client = { client_id: stored.clientId, token_endpoint_auth_method: method };
  return { client, authentication: authenticationFor(method, stored, options), method, source };
}

/**
 * The token endpoint authentication method: the registered one when the server told us, else the
 * first this client can do among those the server advertises (RFC 8414's default when it
 * advertises none: client_secret_basic).
 */
export function chooseMethod(
  as: oauth.AuthorizationServer,
  stored: StoredClient,
  hasKey: boolean,
): string {
  if (stored.tokenEndpointAuthMethod !== undefined) return stored.tokenEndpointAuthMethod;
  const advertised = as.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  const possible = [
    ...(stored.clientSecret === undefined ? [] : METHODS_WITH_SECRET),
    ...(hasKey ? ["private_key_jwt"] : []),
    "none",
  ];
  const chosen = possible.find((m) => advertised.includes(m));
  if (chosen === undefined) {
    throw new AuthorizationError(
      "registration",
      `the token endpoint accepts ${advertised.join(", ") || "nothing"}, and this client can do ${possible.join(", ")}`,
    );
  }
  return chosen;
}

function authenticationFor(
  method: string,
  stored: StoredClient,
  options: ClientIdentityOptions,
): oauth.ClientAuth {
  const secret = stored.clientSecret;
  switch (method) {
    case "client_secret_basic":
    case "client_secret_post":
      if (secret === undefined) {
        throw new AuthorizationError(
          "registration",
          `${method} needs a client secret, and none is known`,
        );
      }
      return method === "client_secret_basic"
        ? clientSecretBasic(secret)
        : oauth.ClientSecretPost(secret);
    case "private_key_jwt":
      if (options.privateKey === undefined) {
        throw new AuthorizationError("registration", "private_key_jwt needs a private key");
      }
      return oauth.PrivateKeyJwt(
        options.keyId === undefined
          ? options.privateKey
          : { key: options.privateKey, kid: options.keyId },
      );
    case "none":
      return oauth.None();
    default:
      throw new AuthorizationError(
        "registration",
        `the token endpoint authentication method ${method} is not supported`,
      );
  }
}

/**
 * client_secret_basic with the id and secret percent-encoded as encodeURIComponent does, leaving
 * `-_.!~*'()` alone. RFC 6749 §2.3.1 asks for form-urlencoding, which oauth4webapi applies to
 * those characters too (`-` becomes `%2D`); servers that decode get the same value either way,
 * and the many that do not decode (the conformance mocks among them) only accept this form.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    const credentials = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`;
    headers.set("authorization", `Basic ${base64(utf8(credentials))}`);
  };
}

function checkMetadataUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AuthorizationError("registration", "the client metadata URL is not a URL");
  }
  if (parsed.protocol !== "https:" || parsed.pathname === "/" || parsed.hash !== "") {
    throw new AuthorizationError(
      "registration",
      "the client metadata URL must be https with a path (client-id-metadata-document §3)",
    );
  }
}

function expired(client: StoredClient): boolean {
  const at = client.clientSecretExpiresAt;
  return at !== undefined && at !== 0 && at * 1000 <= Date.now();
}
