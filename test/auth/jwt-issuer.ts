/**
 * A small authorization server on 127.0.0.1 that issues JWT access tokens (RFC 9068) signed
 * with jose, for the resource server tests: RFC 8414 metadata, a JWKS (whose key can be
 * rotated), a token endpoint (client credentials: aud = the requested resource; and the JWT
 * bearer grant with assertions signed by a key the test trusts), DPoP-bound tokens when asked
 * (a proof at the token endpoint, optionally with a nonce it insists on, which it may replace with
 * a fresh one on every token it issues), and RFC 7662
 * introspection of opaque tokens it was told about. Every request is counted by path.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type CryptoKey,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from "jose";
import {
  USER_GRANT_TYPES,
  type UserFlowOptions,
  type UserFlows,
  userFlows,
} from "./jwt-issuer-user-flows.js";
import { checkTokenRequestProof } from "./token-request-proof.js";

export interface JwtIssuerOptions extends UserFlowOptions {
  /** A client authenticating with Basic gets `WWW-Authenticate: Basic` with its 401 (RFC 6749 §5.2). */
  basicChallenge?: boolean;
  /** Offer DPoP (dpop_signing_alg_values_supported) and bind tokens to the proof's key. */
  dpop?: {
    algorithms: string[];
    nonce?: string;
    /** Hand out a fresh nonce (`DPoP-Nonce`) with every token, and insist on it from then on. */
    rotateNonce?: boolean;
    /** false: bind tokens to a proof's key without listing DPoP in the metadata. */
    advertise?: boolean;
  };
}

/** What a token request carried. */
export interface TokenRequestSeen {
  grantType: string | null;
  assertion: string | null;
  dpop: boolean;
  /** The nonce the DPoP proof carried. */
  dpopNonce?: string;
}

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

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
  /** Keys whose JWT bearer assertions it accepts (subject = the assertion's `sub`). */
  readonly assertionKeys: CryptoKey[];
  readonly tokenRequests: TokenRequestSeen[];
  /** Every access token the token endpoint issued, in order. */
  readonly issued: string[];
  /** Authorization code, refresh and device grants (jwt-issuer-user-flows.ts). */
  readonly flows: UserFlows;
  close(): Promise<void>;
}

export async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const kid = randomBytes(6).toString("hex");
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  return { kid, privateKey, jwk };
}

export async function startJwtIssuer(options: JwtIssuerOptions = {}): Promise<JwtIssuer> {
  let current = await newKey();
  const hits = new Map<string, number>();
  const introspection = new Map<string, Introspected>();
  const introspectionClient = { id: "rs-client", secret: "rs-secret" };
  const clients = new Map<string, { secret: string; scopes: string[] }>();
  const assertionKeys: CryptoKey[] = [];
  const tokenRequests: TokenRequestSeen[] = [];
  const issued: string[] = [];
  let issuer = "";
  let dpopNonce = options.dpop?.nonce;
  let nonceGeneration = 0;

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

  interface Answer {
    status: number;
    body: unknown;
    headers?: Record<string, string>;
  }
  /** The subject and client of a grant, or the error to answer. */
  const grantOf = async (
    form: URLSearchParams,
    basicId: string | undefined,
    basicSecret: string | undefined,
  ): Promise<{ subject: string; scopes: string[] } | Answer> => {
    const asked = (form.get("scope") ?? "").split(" ").filter((s) => s !== "");
    if (form.get("grant_type") === JWT_BEARER) {
      for (const key of assertionKeys) {
        try {
          const { payload } = await jwtVerify(form.get("assertion") ?? "", key, {
            audience: issuer,
          });
          return { subject: String(payload.sub), scopes: asked };
        } catch {
          // try the next key
        }
      }
      return { status: 400, body: { error: "invalid_grant" } };
    }
    if (form.get("grant_type") !== "client_credentials") {
      return { status: 400, body: { error: "unsupported_grant_type" } };
    }
    const client = clients.get(basicId ?? "");
    if (!client || client.secret !== basicSecret) {
      return {
        status: 401,
        body: { error: "invalid_client" },
        ...(options.basicChallenge ? { headers: { "WWW-Authenticate": 'Basic realm="as"' } } : {}),
      };
    }
    if (options.requireScope && asked.length === 0) {
      return { status: 400, body: { error: "invalid_scope", error_description: "name a scope" } };
    }
    return { subject: basicId as string, scopes: asked.filter((s) => client.scopes.includes(s)) };
  };

  const token = async (
    form: URLSearchParams,
    basicId: string | undefined,
    basicSecret: string | undefined,
    proof: string | undefined,
  ): Promise<Answer> => {
    const grant = await grantOf(form, basicId, basicSecret);
    if ("status" in grant) return grant;
    const resource = form.get("resource");
    if (!resource) return { status: 400, body: { error: "invalid_target" } };
    let jkt: string | undefined;
    if (options.dpop && proof !== undefined) {
      const outcome = await checkTokenRequestProof(proof, `${issuer}/token`, dpopNonce);
      if (!outcome.ok) {
        return {
          status: 400,
          body: { error: outcome.error },
          ...(outcome.nonce ? { headers: { "DPoP-Nonce": outcome.nonce } } : {}),
        };
      }
      jkt = outcome.jkt;
    }
    const scope = grant.scopes.join(" ");
    const accessToken = await mint(resource, {
      claims: {
        sub: grant.subject,
        client_id: grant.subject,
        scope,
        ...(jkt ? { cnf: { jkt } } : {}),
      },
    });
    issued.push(accessToken);
    if (options.dpop?.rotateNonce) dpopNonce = `fresh-${++nonceGeneration}`;
    return {
      status: 200,
      ...(options.dpop?.rotateNonce ? { headers: { "DPoP-Nonce": dpopNonce as string } } : {}),
      body: {
        access_token: accessToken,
        token_type: jkt ? "DPoP" : "Bearer",
        expires_in: 300,
        scope,
      },
    };
  };

  const flows = userFlows(
    {
      issuer: () => issuer,
      mint: (resource, claims, lifetime) => mint(resource, { claims, expiresIn: lifetime }),
      clients,
      issued,
    },
    options,
  );

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
      const flowRequest = {
        req,
        res,
        url,
        form,
        body: Buffer.concat(chunks).toString("utf8"),
        basic: { id: basic === "" ? undefined : basicId, secret: basicSecret },
        json,
      };
      if (flows.handle(flowRequest)) return;
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        return json(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          introspection_endpoint: `${issuer}/introspect`,
          response_types_supported: ["code"],
          grant_types_supported: ["client_credentials", JWT_BEARER, ...USER_GRANT_TYPES],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "none"],
          code_challenge_methods_supported: ["S256"],
          ...flows.metadata(),
          ...(options.dpop && options.dpop.advertise !== false
            ? { dpop_signing_alg_values_supported: options.dpop.algorithms }
            : {}),
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
        const proof = req.headers.dpop;
        tokenRequests.push({
          grantType: form.get("grant_type"),
          assertion: form.get("assertion"),
          dpop: typeof proof === "string",
          ...(typeof proof === "string" ? { dpopNonce: decodeJwt(proof).nonce as string } : {}),
        });
        void token(form, basicId, basicSecret, typeof proof === "string" ? proof : undefined)
          .then(({ status, body, headers }) => {
            res.writeHead(status, { "Content-Type": "application/json", ...headers });
            res.end(JSON.stringify(body));
          })
          .catch(() => json(500, { error: "server_error" }));
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
    assertionKeys,
    tokenRequests,
    issued,
    flows,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
