/**
 * A small authorization server and a protected MCP server on 127.0.0.1 for the OAuth client
 * tests. The AS serves metadata where a test says, authorizes at once (302 back to the redirect
 * URI with code, state and iss), issues and rotates tokens, registers clients; every request is
 * recorded. The protected server checks bearer tokens against the AS's ledger and hands good
 * requests to a real mcpwire McpServer.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "../../src/server/index.js";
import { createHttpHandler, type HttpHandler } from "../../src/transports/http/server.js";

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  form: URLSearchParams;
  json: Record<string, unknown> | undefined;
}

interface Listening {
  url: string;
  server: Server;
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<Listening> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server };
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export interface IssuedToken {
  scopes: string[];
  clientId: string;
  resource: string | undefined;
}

export interface AuthServerOptions {
  /** Path (from the origin) of the issuer; "" for the origin itself. */
  issuerPath?: string;
  /** Where the metadata is served. Default `/.well-known/oauth-authorization-server` + path. */
  metadataPaths?: string[];
  /** Replaces the issuer in the metadata document (to test the mismatch check). */
  metadataIssuer?: string;
  tokenEndpointAuthMethods?: string[];
  scopesSupported?: string[];
  /** Token lifetime in seconds. Default 3600. */
  expiresIn?: number;
  /** Issue refresh tokens (rotated on every use). Default true. */
  refreshTokens?: boolean;
  /** What the registration endpoint answers with (besides client_id). */
  registration?: { clientSecret?: string; tokenEndpointAuthMethod?: string };
  /** Leave out the registration endpoint. */
  noRegistration?: boolean;
  /** Refuse every registration with this status and JSON body (RFC 7591 §3.2.2). */
  registrationRefusal?: { status: number; body: Record<string, unknown> };
  /** Scopes this AS ever grants (others asked for are silently left out). Default: all. */
  grantable?: string[];
  /** The `iss` of authorization responses from the issuer (default: itself; null: none). */
  issInRedirect?: (issuer: string) => string | null;
  /** Metadata fields to add or override. */
  extraMetadata?: Record<string, unknown>;
}

export interface AuthServer {
  readonly issuer: string;
  readonly origin: string;
  readonly requests: Recorded[];
  readonly tokens: Map<string, IssuedToken>;
  /** Makes every token issued so far unusable at the resource server. */
  revokeAll(): void;
  /** Forgets every client registered so far: their token requests get 401 invalid_client. */
  forgetRegistrations(): void;
  close(): Promise<void>;
}

export async function startAuthServer(options: AuthServerOptions = {}): Promise<AuthServer> {
  const requests: Recorded[] = [];
  const tokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, IssuedToken>();
  const codes = new Map<string, { challenge: string; scopes: string[]; clientId: string }>();
  let counter = 0;
  const forgotten = new Set<string>();
  const registered = new Set<string>();
  // Ids differ between authorization servers, as real ones would.
  const label = randomBytes(3).toString("hex");
  let origin = "";
  const issuerPath = options.issuerPath ?? "";
  const issuer = () => `${origin}${issuerPath}`;
  const metadataPaths = options.metadataPaths ?? [
    `/.well-known/oauth-authorization-server${issuerPath}`,
  ];

  const issue = (
    res: ServerResponse,
    scopes: string[],
    clientId: string,
    resource: string | undefined,
  ) => {
    counter += 1;
    const access = `at-${label}-${counter}`;
    tokens.set(access, { scopes, clientId, resource });
    const body: Record<string, unknown> = {
      access_token: access,
      token_type: "Bearer",
      expires_in: options.expiresIn ?? 3600,
    };
    if (scopes.length > 0) body.scope = scopes.join(" ");
    if (options.refreshTokens !== false) {
      const refresh = `rt-${label}-${counter}`;
      refreshTokens.set(refresh, { scopes, clientId, resource });
      body.refresh_token = refresh;
    }
    sendJson(res, 200, body);
  };

  const listening = await listen((req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    const form = new URLSearchParams(
      req.headers["content-type"]?.includes("x-www-form-urlencoded") ? body : "",
    );
    let json: Record<string, unknown> | undefined;
    try {
      json = req.headers["content-type"]?.includes("json") ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    requests.push({
      method: req.method ?? "",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      form,
      json,
    });
    if (req.method === "GET" && metadataPaths.includes(url.pathname)) {
      return sendJson(res, 200, {
        issuer: options.metadataIssuer ?? issuer(),
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        ...(options.noRegistration ? {} : { registration_endpoint: `${origin}/register` }),
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
        code_challenge_methods_supported: ["S256"],
        authorization_response_iss_parameter_supported: true,
        token_endpoint_auth_methods_supported: options.tokenEndpointAuthMethods ?? ["none"],
        ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
        ...options.extraMetadata,
      });
    }
    if (req.method === "GET" && url.pathname === "/authorize") {
      counter += 1;
      const code = `code-${counter}`;
      codes.set(code, {
        challenge: url.searchParams.get("code_challenge") ?? "",
        scopes: (url.searchParams.get("scope") ?? "")
          .split(" ")
          .filter((scope) => scope && (options.grantable?.includes(scope) ?? true)),
        clientId: url.searchParams.get("client_id") ?? "",
      });
      const back = new URL(url.searchParams.get("redirect_uri") ?? "http://127.0.0.1/none");
      back.searchParams.set("code", code);
      const state = url.searchParams.get("state");
      if (state) back.searchParams.set("state", state);
      const iss = options.issInRedirect ? options.issInRedirect(issuer()) : issuer();
      if (iss !== null) back.searchParams.set("iss", iss);
      res.writeHead(302, { Location: back.href }).end();
      return;
    }
    if (req.method === "POST" && url.pathname === "/register") {
      if (options.registrationRefusal) {
        const { status, body: refusal } = options.registrationRefusal;
        return sendJson(res, status, refusal);
      }
      counter += 1;
      const reg = options.registration ?? {};
      registered.add(`client-${label}-${counter}`);
      return sendJson(res, 201, {
        client_id: `client-${label}-${counter}`,
        ...(reg.clientSecret ? { client_secret: reg.clientSecret } : {}),
        ...(reg.tokenEndpointAuthMethod
          ? { token_endpoint_auth_method: reg.tokenEndpointAuthMethod }
          : {}),
        redirect_uris: json?.redirect_uris ?? [],
      });
    }
    if (req.method === "POST" && url.pathname === "/token") {
      const grant = form.get("grant_type");
      const resource = form.get("resource") ?? undefined;
      const basic = req.headers.authorization?.startsWith("Basic ")
        ? Buffer.from(req.headers.authorization.slice(6), "base64").toString().split(":")[0]
        : undefined;
      if (forgotten.has(form.get("client_id") ?? basic ?? "")) {
        return sendJson(res, 401, { error: "invalid_client" });
      }
      if (grant === "authorization_code") {
        const code = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        const computed = createHash("sha256").update(verifier).digest("base64url");
        if (!code || computed !== code.challenge) {
          return sendJson(res, 400, { error: "invalid_grant" });
        }
        return issue(res, code.scopes, code.clientId, resource);
      }
      if (grant === "refresh_token") {
        const presented = form.get("refresh_token") ?? "";
        const known = refreshTokens.get(presented);
        // Rotation: a refresh token works once.
        refreshTokens.delete(presented);
        if (!known) return sendJson(res, 400, { error: "invalid_grant" });
        return issue(res, known.scopes, known.clientId, resource);
      }
      if (grant === "client_credentials") {
        return issue(res, (form.get("scope") ?? "").split(" ").filter(Boolean), "cc", resource);
      }
      return sendJson(res, 400, { error: "unsupported_grant_type" });
    }
    res.writeHead(404).end();
  });
  origin = listening.url;
  return {
    get issuer() {
      return issuer();
    },
    origin,
    requests,
    tokens,
    revokeAll: () => tokens.clear(),
    forgetRegistrations: () => {
      for (const id of registered) forgotten.add(id);
    },
    close: () => close(listening.server),
  };
}

export interface ProtectedServerOptions {
  /** The authorization server(s) the PRM names (read on every PRM request). */
  authorizationServers: () => string[];
  /** PRM `resource`. Default: the server's own /mcp URL. */
  resource?: string;
  scopesSupported?: string[];
  /** Scopes a `tools/call` needs (403 insufficient_scope otherwise). */
  callScopes?: string[];
  /** The scope parameter of the 401 challenge. */
  challengeScope?: string;
  /** Put resource_metadata in the 401 challenge. Default true. */
  hintMetadata?: boolean;
  /** Where the PRM is served. Default the path-aware well-known URL. */
  prmPath?: string;
}

export interface ProtectedServer {
  readonly url: string;
  readonly origin: string;
  readonly requests: Recorded[];
  close(): Promise<void>;
}

export async function startProtectedServer(
  as: AuthServer,
  options: ProtectedServerOptions,
): Promise<ProtectedServer> {
  const requests: Recorded[] = [];
  const mcp = new McpServer({ serverInfo: { name: "protected", version: "1.0.0" } });
  mcp.tool({ name: "echo", inputSchema: { type: "object" } }, (args) => JSON.stringify(args));
  const handler = createHttpHandler(mcp, { responseMode: "json" });
  let origin = "";
  const prmPath = options.prmPath ?? "/.well-known/oauth-protected-resource/mcp";
  const listening = await listen((req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    let json: Record<string, unknown> | undefined;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    requests.push({
      method: req.method ?? "",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      form: new URLSearchParams(),
      json,
    });
    if (req.method === "GET" && url.pathname === prmPath) {
      return sendJson(res, 200, {
        resource: options.resource ?? `${origin}/mcp`,
        authorization_servers: options.authorizationServers(),
        ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
      });
    }
    if (url.pathname !== "/mcp") return void res.writeHead(404).end();
    const metadata = `${origin}${prmPath}`;
    const authorization = req.headers.authorization ?? "";
    const token = authorization.startsWith("Bearer ")
      ? as.tokens.get(authorization.slice(7))
      : undefined;
    if (!token) {
      const params = [
        ...(options.hintMetadata === false ? [] : [`resource_metadata="${metadata}"`]),
        ...(options.challengeScope ? [`scope="${options.challengeScope}"`] : []),
        ...(authorization ? ['error="invalid_token"'] : []),
      ];
      return sendJson(
        res,
        401,
        { error: "invalid_token" },
        {
          "WWW-Authenticate": `Bearer ${params.join(", ")}`.trim(),
        },
      );
    }
    const needs = json?.method === "tools/call" ? (options.callScopes ?? []) : [];
    if (!needs.every((scope) => token.scopes.includes(scope))) {
      return sendJson(
        res,
        403,
        { error: "insufficient_scope" },
        {
          "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${needs.join(" ")}", resource_metadata="${metadata}"`,
        },
      );
    }
    void forward(handler, `${origin}${req.url}`, req, body, res);
  });
  origin = listening.url;
  return {
    url: `${origin}/mcp`,
    origin,
    requests,
    close: async () => {
      await handler.close();
      await close(listening.server);
    },
  };
}

/** Hands an authorized request to the MCP server's fetch-style handler (JSON replies only). */
async function forward(
  handler: HttpHandler,
  url: string,
  req: IncomingMessage,
  body: string,
  res: ServerResponse,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const response = await handler.handle(
    new Request(url, { method, headers, body: method === "POST" ? body : undefined }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}
