/**
 * An enterprise identity provider on 127.0.0.1 for the enterprise-managed authorization tests:
 * OpenID metadata, ID tokens it signs for the test, and RFC 8693 token exchange at /token that
 * trades one of its ID tokens (client_secret_basic) for an ID-JAG (typ oauth-id-jag+jwt) naming
 * the requested audience (the MCP server's authorization server), resource and client.
 * Every token exchange request is recorded.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, generateKeyPair, jwtVerify, SignJWT } from "jose";

export interface IdentityProvider {
  readonly issuer: string;
  /** Its signing key's public half: what the MCP server's authorization server trusts. */
  readonly publicKey: CryptoKey;
  /** An ID token for `subject`, issued to `clientId`. */
  idToken(subject: string, clientId: string): Promise<string>;
  readonly exchanges: URLSearchParams[];
  close(): Promise<void>;
}

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

type Answer = [status: number, body: unknown];

export async function startIdentityProvider(client: {
  id: string;
  secret: string;
}): Promise<IdentityProvider> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const exchanges: URLSearchParams[] = [];
  let issuer = "";
  const sign = (claims: Record<string, unknown>, typ: string, audience: string) =>
    new SignJWT({ ...claims, jti: randomBytes(8).toString("hex") })
      .setProtectedHeader({ alg: "ES256", typ })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);

  const exchange = async (
    form: URLSearchParams,
    authorization: string | undefined,
  ): Promise<Answer> => {
    const basic = Buffer.from((authorization ?? "").replace(/^Basic /, ""), "base64").toString();
    if (basic !== `${client.id}:${client.secret}`) return [401, { error: "invalid_client" }];
    if (
      form.get("grant_type") !== TOKEN_EXCHANGE ||
      form.get("requested_token_type") !== "urn:ietf:params:oauth:token-type:id-jag" ||
      form.get("subject_token_type") !== "urn:ietf:params:oauth:token-type:id_token" ||
      !form.get("audience") ||
      !form.get("resource")
    ) {
      return [400, { error: "invalid_request" }];
    }
    try {
      const { payload } = await jwtVerify(form.get("subject_token") ?? "", publicKey, {
        issuer,
        audience: client.id,
      });
      const grant = await sign(
        { sub: payload.sub, client_id: client.id, resource: form.get("resource") },
        "oauth-id-jag+jwt",
        form.get("audience") as string,
      );
      return [
        200,
        {
          access_token: grant,
          issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
          token_type: "N_A",
          expires_in: 300,
        },
      ];
    } catch {
      return [400, { error: "invalid_grant" }];
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const send = ([status, body]: Answer) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.url === "/.well-known/openid-configuration") {
        return send([
          200,
          {
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            jwks_uri: `${issuer}/jwks`,
            response_types_supported: ["code"],
            grant_types_supported: [TOKEN_EXCHANGE],
            token_endpoint_auth_methods_supported: ["client_secret_basic"],
          },
        ]);
      }
      if (req.url === "/token" && req.method === "POST") {
        const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
        exchanges.push(form);
        void exchange(form, req.headers.authorization).then(send);
        return;
      }
      send([404, { error: "not_found" }]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get issuer() {
      return issuer;
    },
    publicKey,
    idToken: (subject, clientId) => sign({ sub: subject }, "JWT", clientId),
    exchanges,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
