/**
 * Real clients against a protected mcpwire server: mcpwire's own OAuth client (client
 * credentials, discovering the issuer from the challenge and stepping up on 403), and the
 * official TypeScript SDK client sending a bearer token.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { OAuthClient } from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/index.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import { type Protected, startProtected } from "./resource-server-fixtures.js";

let as: JwtIssuer;
let rs: Protected;
before(async () => {
  as = await startJwtIssuer();
  rs = await startProtected({ issuer: as.issuer, requiredScopes: ["mcp"] });
});
after(async () => {
  await rs.close();
  await as.close();
});

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("mcpwire's OAuth client against the protected server", () => {
  it("gets a token with client credentials, is seen as itself, and steps up for a tool's scopes", async () => {
    as.clients.set("robot", { secret: "s3cret", scopes: ["mcp", "files:read", "files:write"] });
    const auth = new OAuthClient({
      grant: "client_credentials",
      clientId: "robot",
      clientSecret: "s3cret",
      clientIssuer: as.issuer,
    });
    for (const era of ["modern", "legacy"] as const) {
      const client = new McpClient({ clientInfo: { name: "robot", version: "1.0.0" }, era });
      try {
        const transport = new HttpClientTransport(rs.url, { auth, flavourCache: new Map() });
        await client.connect(transport);
        const me = JSON.parse(textOf(await client.callTool("whoami", {})));
        assert.equal(me.subject, "robot");
        assert.equal(me.clientId, "robot");
        assert.equal(textOf(await client.callTool("write_file", {})), "written");
      } finally {
        await client.close();
      }
    }
    const tokenRequests = as.hits.get("/token") ?? 0;
    // One token for "mcp", one step-up for the tool's scopes; the legacy run reuses the last.
    assert.equal(tokenRequests, 2);
  });
});

describe("the official SDK client with a bearer token", () => {
  it("connects and calls tools with the token; without one it is refused", async () => {
    const token = await as.mint(rs.url, { claims: { sub: "sdk-user", scope: "mcp" } });
    const client = new Client({ name: "sdk", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(rs.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: "whoami", arguments: {} });
      assert.equal(JSON.parse(textOf(result as { content: unknown[] })).subject, "sdk-user");
    } finally {
      await client.close();
    }
    const anonymous = new Client({ name: "sdk", version: "1.0.0" });
    await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(new URL(rs.url))));
    await anonymous.close();
  });
});

describe("the official SDK client with its own OAuth provider", () => {
  it("discovers the issuer from our challenge and metadata, gets a token with client credentials, and gets in", async () => {
    as.clients.set("sdk-robot", { secret: "sdk-secret", scopes: ["mcp"] });
    const authProvider = new ClientCredentialsProvider({
      clientId: "sdk-robot",
      clientSecret: "sdk-secret",
      scope: "mcp",
      expectedIssuer: as.issuer,
    });
    const client = new Client({ name: "sdk-oauth", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(rs.url), { authProvider }));
    try {
      const result = await client.callTool({ name: "whoami", arguments: {} });
      const me = JSON.parse(textOf(result as { content: unknown[] }));
      assert.equal(me.subject, "sdk-robot");
      assert.deepEqual(me.scopes, ["mcp"]);
    } finally {
      await client.close();
    }
  });
});
