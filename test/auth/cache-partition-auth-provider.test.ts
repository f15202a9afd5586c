/**
 * The client's private cache entries are partitioned by the Authorization header that an `auth`
 * provider adds, as they are for the `headers` option: a provider whose token changes is never
 * served another token's private result.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { McpServer } from "../../src/server/index.js";
import { bearerToken, HttpClientTransport } from "../../src/transports/http/index.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";

const TOKENS: Record<string, string> = { "token-alice": "alice", "token-bob": "bob" };

describe("private cache entries follow the auth provider's token", () => {
  let served: ServedHttp;
  let reads = 0;
  let token = "token-alice";
  let client: McpClient;

  before(async () => {
    const mcp = new McpServer({ serverInfo: { name: "auth-cache", version: "1" } });
    mcp.resource(
      { uri: "mem://me", name: "me" },
      (uri, context) => {
        reads++;
        return [{ uri, text: String(context.principal) }];
      },
      { cache: { ttlMs: 60_000, cacheScope: "private" } },
    );
    served = await serveHttp(mcp, {
      port: 0,
      authenticate: (request) => {
        const user = TOKENS[request.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""];
        if (request.method === "POST" && user === undefined) {
          return new Response("", { status: 401 });
        }
        return user;
      },
    });
    client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    await client.connect(new HttpClientTransport(served.url, { auth: bearerToken(() => token) }));
  });
  after(async () => {
    await client.close();
    await served.close();
  });

  it("a changed token is not served the previous token's private result", async () => {
    const me = async () => (await client.readResource("mem://me")).contents[0] as { text: string };
    assert.equal((await me()).text, "alice");
    assert.equal((await me()).text, "alice");
    assert.equal(reads, 1, "alice's second read comes from the cache");
    token = "token-bob";
    assert.equal((await me()).text, "bob");
    assert.equal(reads, 2);
  });
});
