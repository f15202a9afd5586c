/**
 * The user-facing grants of the test JWT issuer (jwt-issuer.ts): dynamic registration of public
 * clients, the authorization code grant with PKCE (authorizing at once: 302 back with code, state
 * and iss), refresh tokens rotated on every use, and the device authorization grant (RFC 8628)
 * whose user codes are approved or denied with a POST to the verification URI, as a person's
 * browser would. Tokens are the issuer's JWTs, audience = the `resource` asked for. Optionally
 * clients named by a client ID metadata document URL (the documents given, as if fetched), and
 * RFC 7009 revocation of refresh tokens.
 */
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export interface UserFlowOptions {
  /** Access token lifetime (s). Default 300. */
  tokenLifetime?: number;
  /** Answer the first poll of each device code with slow_down. */
  slowDownOnce?: boolean;
  /** The verification_uri_complete to hand out (a hostile server's, say). */
  verificationUriComplete?: string;
  /**
   * Client ID metadata documents by URL, as this server would fetch them: it then advertises
   * `client_id_metadata_document_supported` and takes those URLs as client ids.
   */
  clientMetadataDocuments?: Record<string, { client_id: string; redirect_uris: string[] }>;
  /** A revocation endpoint (RFC 7009): refresh tokens it revokes no longer work. */
  revocation?: boolean;
  /** Refuse an authorization (access_denied) or client credentials (invalid_scope) without scope. */
  requireScope?: boolean;
}

/** Which client a token or revocation request came from. */
export interface ClientRequest {
  path: string;
  grantType: string | null;
  clientId: string;
}

export interface UserFlowContext {
  issuer: () => string;
  /** A signed access token for `resource`. */
  mint: (resource: string, claims: Record<string, unknown>, lifetime: number) => Promise<string>;
  /** Confidential clients (client_secret_basic) that may use these grants too. */
  clients: Map<string, { secret: string; scopes: string[] }>;
  issued: string[];
}

interface Grant {
  clientId: string;
  scope: string;
}

interface DeviceGrant extends Grant {
  userCode: string;
  status: "pending" | "approved" | "denied";
  slowedDown: boolean;
  expiresAt: number;
}

export interface UserFlows {
  /** The metadata fields these grants add. */
  metadata(): Record<string, unknown>;
  /** Handles the request when it is one of these grants' endpoints; false otherwise. */
  handle(request: FlowRequest): boolean;
  /** Refresh tokens issued, in order. */
  readonly refreshIssued: string[];
  /** Refresh requests refused (a spent or unknown refresh token). */
  readonly refreshRefused: { count: number };
  /** Device authorization requests seen and token polls answered, by error code. */
  readonly devicePolls: Map<string, number>;
  /** Token and revocation requests from known clients, in order. */
  readonly clientRequests: ClientRequest[];
  /** Forgets every dynamic registration (as a server that expired or deleted them). */
  forgetRegistrations(): void;
}

export interface FlowRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  form: URLSearchParams;
  body: string;
  basic: { id: string | undefined; secret: string | undefined };
  json: (status: number, body: unknown) => void;
}

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** The grants handled here (the issuer's metadata lists them with its own). */
export const USER_GRANT_TYPES = ["authorization_code", "refresh_token", DEVICE_GRANT];

export function userFlows(context: UserFlowContext, options: UserFlowOptions = {}): UserFlows {
  const registered = new Set<string>();
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  const refreshTokens = new Map<string, Grant>();
  const devices = new Map<string, DeviceGrant>();
  const refreshIssued: string[] = [];
  const refreshRefused = { count: 0 };
  const devicePolls = new Map<string, number>();
  const clientRequests: ClientRequest[] = [];
  const documents = options.clientMetadataDocuments ?? {};
  const lifetime = options.tokenLifetime ?? 300;
  const random = () => randomBytes(12).toString("base64url");

  /** The client of a request: a registered public one (client_id) or a confidential one (Basic). */
  const clientOf = (request: FlowRequest, fromQuery = false): string | undefined => {
    const { id, secret } = request.basic;
    if (id !== undefined && id !== "") {
      return context.clients.get(id)?.secret === secret ? id : undefined;
    }
    const publicId = (fromQuery ? request.url.searchParams : request.form).get("client_id") ?? "";
    if (registered.has(publicId)) return publicId;
    // A document's client_id must be the very URL it was fetched from.
    if (Object.hasOwn(documents, publicId) && documents[publicId]?.client_id === publicId) {
      return publicId;
    }
    return fromQuery && context.clients.has(publicId) ? publicId : undefined;
  };

  const issue = async (request: FlowRequest, grant: Grant) => {
    const resource = request.form.get("resource");
    if (!resource) return request.json(400, { error: "invalid_target" });
    const token = await context.mint(
      resource,
      { sub: "user-1", client_id: grant.clientId, scope: grant.scope },
      lifetime,
    );
    context.issued.push(token);
    const refresh = random();
    refreshTokens.set(refresh, grant);
    refreshIssued.push(refresh);
    request.json(200, {
      access_token: token,
      token_type: "Bearer",
      expires_in: lifetime,
      refresh_token: refresh,
      ...(grant.scope ? { scope: grant.scope } : {}),
    });
  };

  const poll = (request: FlowRequest, error: string) => {
    devicePolls.set(error, (devicePolls.get(error) ?? 0) + 1);
    request.json(400, { error });
  };

  const token = (request: FlowRequest, clientId: string) => {
    const { form } = request;
    const grantType = form.get("grant_type");
    if (grantType === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const computed = createHash("sha256").update(verifier).digest("base64url");
      if (
        !code ||
        code.clientId !== clientId ||
        code.redirectUri !== form.get("redirect_uri") ||
        computed !== code.challenge
      ) {
        return request.json(400, { error: "invalid_grant" });
      }
      return void issue(request, code);
    }
    if (grantType === "refresh_token") {
      const presented = form.get("refresh_token") ?? "";
      const known = refreshTokens.get(presented);
      refreshTokens.delete(presented);
      if (!known || known.clientId !== clientId) {
        refreshRefused.count += 1;
        return request.json(400, { error: "invalid_grant" });
      }
      return void issue(request, known);
    }
    if (grantType === DEVICE_GRANT) {
      const deviceCode = form.get("device_code") ?? "";
      const device = devices.get(deviceCode);
      if (!device || device.clientId !== clientId)
        return request.json(400, { error: "invalid_grant" });
      if (Date.now() > device.expiresAt) return poll(request, "expired_token");
      if (device.status === "denied") return poll(request, "access_denied");
      if (options.slowDownOnce && !device.slowedDown) {
        device.slowedDown = true;
        return poll(request, "slow_down");
      }
      if (device.status === "pending") return poll(request, "authorization_pending");
      devices.delete(deviceCode);
      devicePolls.set("granted", (devicePolls.get("granted") ?? 0) + 1);
      return void issue(request, device);
    }
    request.json(400, { error: "unsupported_grant_type" });
  };

  /** A metadata document client's redirect URI is one it lists, any loopback port. */
  const documentAllows = (clientId: string, redirectUri: string) => {
    if (!Object.hasOwn(documents, clientId)) return true;
    const anyPort = (uri: string) => uri.replace(/^(http:\/\/127\.0\.0\.1)(:\d+)?/, "$1");
    return (documents[clientId]?.redirect_uris ?? []).map(anyPort).includes(anyPort(redirectUri));
  };

  /** RFC 7009: 200 whatever the token; a refresh token of this client stops working. */
  const revoke = (request: FlowRequest, clientId: string) => {
    const presented = request.form.get("token") ?? "";
    if (refreshTokens.get(presented)?.clientId === clientId) refreshTokens.delete(presented);
    request.res.writeHead(200).end();
  };

  return {
    refreshIssued,
    refreshRefused,
    devicePolls,
    clientRequests,
    forgetRegistrations: () => registered.clear(),
    metadata: () => ({
      registration_endpoint: `${context.issuer()}/register`,
      device_authorization_endpoint: `${context.issuer()}/device_authorization`,
      authorization_response_iss_parameter_supported: true,
      ...(options.clientMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
      ...(options.revocation ? { revocation_endpoint: `${context.issuer()}/revoke` } : {}),
    }),
    handle(request) {
      const { url, req, res, form } = request;
      if (url.pathname === "/register" && req.method === "POST") {
        const metadata = JSON.parse(request.body || "{}") as Record<string, unknown>;
        const clientId = `public-${random()}`;
        registered.add(clientId);
        request.json(201, { ...metadata, client_id: clientId, token_endpoint_auth_method: "none" });
        return true;
      }
      if (url.pathname === "/authorize" && req.method === "GET") {
        const query = url.searchParams;
        const clientId = clientOf(request, true);
        const redirectUri = query.get("redirect_uri") ?? "";
        // Loopback redirect URIs, any port (RFC 8252 §7.3); a document's must list it.
        if (
          !clientId ||
          !/^http:\/\/127\.0\.0\.1(:\d+)?\//.test(redirectUri) ||
          !documentAllows(clientId, redirectUri)
        ) {
          request.json(400, { error: "invalid_request" });
          return true;
        }
        if (options.requireScope && !query.get("scope")) {
          const refused = new URL(redirectUri);
          refused.searchParams.set("error", "access_denied");
          refused.searchParams.set("state", query.get("state") ?? "");
          refused.searchParams.set("iss", context.issuer());
          res.writeHead(302, { Location: refused.href }).end();
          return true;
        }
        const code = random();
        codes.set(code, {
          clientId,
          scope: query.get("scope") ?? "",
          challenge: query.get("code_challenge") ?? "",
          redirectUri,
        });
        const back = new URL(redirectUri);
        back.searchParams.set("code", code);
        back.searchParams.set("state", query.get("state") ?? "");
        back.searchParams.set("iss", context.issuer());
        res.writeHead(302, { Location: back.href }).end();
        return true;
      }
      if (url.pathname === "/device_authorization" && req.method === "POST") {
        const clientId = clientOf(request);
        if (!clientId) {
          request.json(401, { error: "invalid_client" });
          return true;
        }
        const deviceCode = random();
        const userCode = randomBytes(4).toString("hex").toUpperCase();
        devices.set(deviceCode, {
          clientId,
          scope: form.get("scope") ?? "",
          userCode,
          status: "pending",
          slowedDown: false,
          expiresAt: Date.now() + 60_000,
        });
        request.json(200, {
          device_code: deviceCode,
          user_code: userCode,
          verification_uri: `${context.issuer()}/device`,
          verification_uri_complete:
            options.verificationUriComplete ?? `${context.issuer()}/device?user_code=${userCode}`,
          expires_in: 60,
          interval: 1,
        });
        return true;
      }
      if (url.pathname === "/device" && req.method === "POST") {
        const device = [...devices.values()].find((d) => d.userCode === form.get("user_code"));
        if (!device) {
          request.json(404, { error: "unknown user code" });
          return true;
        }
        device.status = form.get("action") === "deny" ? "denied" : "approved";
        request.json(200, { status: device.status });
        return true;
      }
      if (url.pathname === "/token" && req.method === "POST") {
        if (!USER_GRANT_TYPES.includes(form.get("grant_type") ?? "")) return false;
        const clientId = clientOf(request);
        if (!clientId) {
          request.json(401, { error: "invalid_client" });
          return true;
        }
        clientRequests.push({ path: url.pathname, grantType: form.get("grant_type"), clientId });
        token(request, clientId);
        return true;
      }
      if (url.pathname === "/revoke" && req.method === "POST" && options.revocation) {
        const clientId = clientOf(request);
        if (!clientId) {
          request.json(401, { error: "invalid_client" });
          return true;
        }
        clientRequests.push({ path: url.pathname, grantType: null, clientId });
        revoke(request, clientId);
        return true;
      }
      return false;
    },
  };
}
