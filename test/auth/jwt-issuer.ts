/**
 * A small authorization server on 127.0.0.1 that issues JWT access tokens (RFC 9068) signed
 * with jose, for the resource server tests: RFC 8414 metadata, a JWKS (whose key can be
 * rotated), a token endpoint (client credentials: aud = the requested resource), and RFC 7662
 * introspection of opaque tokens it was told about. Every request is counted by path.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

export interface SigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
  jwk: JWK;
}

export interface MintOptions {
  /** Claims to add or override (aud, scope, sub, client_id, exp …). */
  claims?: JWTPayload;
  /** typ header. Default "at+jwt". */
  typ?: string;
  /** Signing key. Default the current one. */
  key?: SigningKey;
  /** Lifetime (s). Default 300. */
  expiresIn?: number;
}

export interface Introspected {
  active: boolean;
  [claim: string]: unknown;
}

export interface JwtIssuer {
  readonly issuer: string;
  /** Requests seen, by path. */
  readonly hits: Map<string, number>;
  /** Signs an access token for `audience`. */
  mint(audience: string, options?: MintOptions): Promise<string>;
  /** Makes a new signing key current; the JWKS then publishes only it. */
  rotate(): Promise<SigningKey>;
  /** A key this issuer never publishes. */
  strangerKey(): Promise<SigningKey>;
  /** What introspection answers for an opaque token. */
  readonly introspection: Map<string, Introspected>;
  /** Credentials the introspection endpoint wants (Basic). */
  readonly introspectionClient: { id: string; secret: string };
  /** Client credentials the token endpoint accepts: id → secret and scopes it may have. */
  readonly clients: Map<string, { secret: string; scopes: string[] }>;
  close(): Promise<void>;
}

export async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const kid = randomBytes(6).toString("hex");
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  return { kid, privateKey, jwk };
}

export async function startJwtIssuer(): Promise<JwtIssuer> {
  let current = await newKey();
  const hits = new Map<string, number>();
  const introspection = new Map<string, Introspected>();
  const introspectionClient = { id: "rs-client", secret: "rs-secret" };
  const clients = new Map<string, { secret: string; scopes: string[] }>();
  let issuer = "";

  const mint = async (audience: string, options: MintOptions = {}) => {
    const key = options.key ?? current;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: issuer,
      aud: audience,
      sub: "user-1",
      client_id: "client-1",
      iat: now,
      exp: now + (options.expiresIn ?? 300),
      jti: randomBytes(8).toString("hex"),
      ...options.claims,
    })
      .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: options.typ ?? "at+jwt" })
      .sign(key.privateKey);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", issuer);
      hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const basic = (req.headers.authorization ?? "").replace(/^Basic /, "");
      const [basicId, basicSecret] = Buffer.from(basic, "base64")
        .toString("utf8")
        .split(":")
        .map((part) => decodeURIComponent(part));
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        return json(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          introspection_endpoint: `${issuer}/introspect`,
          response_types_supported: ["code"],
          grant_types_supported: ["client_credentials"],
          token_endpoint_auth_methods_supported: ["client_secret_basic"],
          code_challenge_methods_supported: ["S256"],
        });
      }
      if (url.pathname === "/jwks") return json(200, { keys: [current.jwk] });
      if (url.pathname === "/introspect" && req.method === "POST") {
        if (basicId !== introspectionClient.id || basicSecret !== introspectionClient.secret) {
          return json(401, { error: "invalid_client" });
        }
        return json(200, introspection.get(form.get("token") ?? "") ?? { active: false });
      }
      if (url.pathname === "/token" && req.method === "POST") {
        const client = clients.get(basicId ?? "");
        if (!client || client.secret !== basicSecret) return json(401, { error: "invalid_client" });
        if (form.get("grant_type") !== "client_credentials") {
          return json(400, { error: "unsupported_grant_type" });
        }
        const asked = (form.get("scope") ?? "").split(" ").filter((s) => s !== "");
        const scopes = asked.filter((s) => client.scopes.includes(s));
        const resource = form.get("resource");
        if (!resource) return json(400, { error: "invalid_target" });
        void mint(resource, {
          claims: { sub: basicId, client_id: basicId, scope: scopes.join(" ") },
        }).then((token) =>
          json(200, {
            access_token: token,
            token_type: "Bearer",
            expires_in: 300,
            scope: scopes.join(" "),
          }),
        );
        return;
      }
      json(404, { error: "not_found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get issuer() {
      return issuer;
    },
    hits,
    mint,
    rotate: async () => {
      current = await newKey();
      return current;
    },
    strangerKey: newKey,
    introspection,
    introspectionClient,
    clients,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
