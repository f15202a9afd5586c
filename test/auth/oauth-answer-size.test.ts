/**
 * The OAuth client reads no answer of an authorization server beyond 256 KiB: a token endpoint
 * handing out a multi-megabyte access token, or a registration endpoint answering with a huge
 * error, is refused as a failure of its step, and nothing is stored. The authorization server
 * here is a real one on 127.0.0.1 (metadata, registration, token endpoint) in front of a
 * protected MCP endpoint; only its answers are hostile.
 */
import assert from "node:assert/strict";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import {
  firstIssuer,
  InMemoryTokenStore,
  OAuthClient,
  type RedirectHandler,
} from "../../src/auth/index.js";
import { connectFailure } from "./token-refusal.js";

const HUGE = 8 * 1024 * 1024;

/** Writes `{"<field>":"AAAA…` of `size` bytes as fast as the reader takes it, then closes it. */
function hugeJson(res: ServerResponse, status: number, field: string, size: number): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  const chunk = "A".repeat(64 * 1024);
  let sent = 0;
  res.write(`{"token_type":"Bearer","error":"invalid_request","${field}":"`);
  const more = (): void => {
    while (sent < size && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", more);
    }
    if (!res.destroyed) res.end('"}');
  };
  res.on("error", () => {});
  more();
}

describe("answers of an authorization server over the cap", () => {
  let server: Server;
  let origin = "";
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const path = new URL(req.url ?? "/", origin).pathname;
        const json = (status: number, body: unknown, headers = {}) => {
          res.writeHead(status, { "Content-Type": "application/json", ...headers });
          res.end(JSON.stringify(body));
        };
        if (path === "/mcp") {
          const metadata = `${origin}/.well-known/oauth-protected-resource/mcp`;
          return json(401, {}, { "WWW-Authenticate": `Bearer resource_metadata="${metadata}"` });
        }
        if (path === "/.well-known/oauth-protected-resource/mcp") {
          return json(200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
        }
        if (path === "/.well-known/oauth-authorization-server") {
          return json(200, {
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            registration_endpoint: `${origin}/register`,
            response_types_supported: ["code"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: ["client_secret_basic", "none"],
          });
        }
        if (path === "/token") return hugeJson(res, 200, "access_token", HUGE);
        if (path === "/register") return hugeJson(res, 400, "error_description", HUGE);
        json(404, {});
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  it("refuses an 8 MiB token response at the token step and stores nothing", async () => {
    const store = new InMemoryTokenStore();
    const auth = new OAuthClient({
      grant: "client_credentials",
      clientId: "c",
      clientSecret: "s",
      clientIssuer: firstIssuer(),
      store,
    });
    const error = await connectFailure(`${origin}/mcp`, auth);
    assert.equal(error.step, "token");
    assert.match(error.message, /token endpoint is over 256 KiB/);
    assert.equal(await store.getTokens(`${origin}/mcp`), undefined);
  });

  it("refuses an 8 MiB registration error at the registration step", async () => {
    const redirect: RedirectHandler = {
      redirectUri: "http://127.0.0.1:1/callback",
      authorize: () => Promise.reject(new Error("never reached")),
    };
    const error = await connectFailure(`${origin}/mcp`, new OAuthClient({ redirect }));
    assert.equal(error.step, "registration");
    assert.match(error.message, /registration endpoint is over 256 KiB/);
  });
});
