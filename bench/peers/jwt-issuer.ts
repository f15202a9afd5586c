/**
 * A minimal JWT issuer for the "JWT auth on" benchmark row: RFC 8414 metadata and a JWKS on
 * 127.0.0.1, and one access token for the server under test.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export interface BenchIssuer {
  issuer: string;
  /** A token for `audience`, valid for an hour. */
  mint(audience: string): Promise<string>;
  close(): Promise<void>;
}

export async function startBenchIssuer(): Promise<BenchIssuer> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench", alg: "ES256", use: "sig" };
  let issuer = "";
  const server = createServer((req, res) => {
    const body =
      req.url === "/.well-known/oauth-authorization-server"
        ? { issuer, jwks_uri: `${issuer}/jwks`, response_types_supported: ["code"] }
        : req.url === "/jwks"
          ? { keys: [jwk] }
          : undefined;
    res.writeHead(body ? 200 : 404, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    mint: (audience) =>
      new SignJWT({ sub: "bench", client_id: "bench", scope: "mcp" })
        .setProtectedHeader({ alg: "ES256", kid: "bench", typ: "at+jwt" })
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(privateKey),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
