/**
 * The MCP server's DPoP nonces (RFC 9449 §9): a front on 127.0.0.1 that demands the current
 * nonce in every proof (401 `DPoP error="use_dpop_nonce"` with `DPoP-Nonce`) and passes what
 * carries it to a protected mcpwire server that requires DPoP. The client answers with the
 * nonce, also right after authorizing (the second, nonce-only retry); when the nonce changes,
 * parallel calls refused alike all retry with the new one, and nobody authorizes again. A front
 * that hands out a fresh nonce with every answer, 200s included, is answered with it at once
 * (RFC 9449 §9: a nonce may come on any answer), so no proof is refused.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { decodeJwt } from "jose";
import { OAuthClient } from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/index.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import { type Protected, startProtected } from "./resource-server-fixtures.js";

interface NonceFront {
  url: string;
  nonce: string;
  /** use_dpop_nonce answers so far. */
  challenges: number;
  /** Hand out a fresh nonce (DPoP-Nonce) with every answer from the MCP endpoint. */
  rotate: boolean;
  /** The nonce each request to the MCP endpoint passed through carried. */
  carried: (string | undefined)[];
  close(): Promise<void>;
}

/** Passes requests to `target` (an origin), demanding `front.nonce` in every DPoP proof. */
async function startNonceFront(target: () => string): Promise<NonceFront> {
  const front = {
    nonce: "n-1",
    challenges: 0,
    rotate: false,
    carried: [],
  } as unknown as NonceFront;
  let generation = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const proof = req.headers.dpop;
      if (typeof proof === "string" && decodeJwt(proof).nonce !== front.nonce) {
        front.challenges += 1;
        res.writeHead(401, {
          "WWW-Authenticate": 'DPoP error="use_dpop_nonce"',
          "DPoP-Nonce": front.nonce,
        });
        return void res.end();
      }
      // The MCP endpoint's requests (not the metadata the OAuth client reads by itself).
      const endpoint = req.url?.startsWith("/mcp") === true;
      if (endpoint) {
        front.carried.push(
          typeof proof === "string" ? (decodeJwt(proof).nonce as string) : undefined,
        );
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && name !== "host" && name !== "content-length") {
          headers[name] = value;
        }
      }
      const answer = await fetch(`${target()}${req.url}`, {
        method: req.method,
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      const passed: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (name !== "content-length" && name !== "transfer-encoding") passed[name] = value;
      });
      if (front.rotate && endpoint) {
        front.nonce = `fresh-${++generation}`;
        passed["dpop-nonce"] = front.nonce;
      }
      res.writeHead(answer.status, passed);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  front.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  front.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return front;
}

let as: JwtIssuer;
let rs: Protected;
let front: NonceFront;
before(async () => {
  as = await startJwtIssuer({ dpop: { algorithms: ["ES256"] } });
  as.clients.set("robot", { secret: "s3cret", scopes: ["mcp"] });
  front = await startNonceFront(() => new URL(rs.url).origin);
  rs = await startProtected(
    { issuer: as.issuer, resource: front.url, requiredScopes: ["mcp"], dpop: { required: true } },
    { responseMode: "json" },
  );
});
after(async () => {
  await front.close();
  await rs.close();
  await as.close();
});

/** A client of the front with a new OAuthClient (client credentials), connected. */
async function connectRobot(): Promise<McpClient> {
  const auth = new OAuthClient({
    grant: "client_credentials",
    clientId: "robot",
    clientSecret: "s3cret",
    clientIssuer: as.issuer,
  });
  const client = new McpClient({ clientInfo: { name: "nonce", version: "1.0.0" } });
  await client.connect(new HttpClientTransport(front.url, { auth, flavourCache: new Map() }));
  return client;
}

describe("DPoP nonces from the MCP server", () => {
  it("are answered right after authorizing, and a new one reaches every parallel call", async () => {
    const client = await connectRobot();
    try {
      await client.callTool("whoami", {});
      assert.equal(front.challenges, 1, "once, for the first proof");
      front.nonce = "n-2";
      const results = await Promise.all(
        Array.from({ length: 10 }, () => client.callTool("whoami", {})),
      );
      assert.equal(results.length, 10);
      assert.equal(front.challenges, 11, "each parallel call once, then with the new nonce");
      assert.equal(as.tokenRequests.length, 1, "nobody authorized again");
    } finally {
      await client.close();
    }
  });

  it("are taken from successful answers too: the next proof carries the newest one", async () => {
    front.rotate = true;
    front.challenges = 0;
    front.carried.length = 0;
    const client = await connectRobot();
    try {
      for (let i = 0; i < 4; i++) await client.callTool("whoami", {});
      // The first request went without a token (its 401 brought fresh-1); every later one
      // carried the nonce the answer before it handed out, 200s included: none was refused.
      assert.equal(front.challenges, 0, String(front.carried));
      assert.ok(front.carried.length >= 5, String(front.carried));
      assert.deepEqual(front.carried, [
        undefined,
        ...front.carried.slice(1).map((_, i) => `fresh-${i + 1}`),
      ]);
    } finally {
      front.rotate = false;
      await client.close();
    }
  });
});
