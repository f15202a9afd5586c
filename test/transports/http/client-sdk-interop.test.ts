/**
 * Our McpClient over HttpClientTransport against the official TypeScript server SDK (v2) on
 * real HTTP: its `createMcpHandler` (modern, with the stateless legacy leg) and its sessionful
 * legacy WebStandardStreamableHTTPServerTransport. The SDK checks our mirrored headers
 * (Mcp-Method, Mcp-Name, Mcp-Param-*) on modern requests, so a wrong header fails here.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import {
  createMcpHandler,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import * as z from "zod";
import { McpClient } from "../../../src/client/index.js";
import { HttpClientTransport } from "../../../src/transports/http/client/client-transport.js";
import { serveFetch } from "../../helpers/serve-fetch.js";

const clientInfo = { name: "mcpwire-http-client", version: "1.0.0" };

function buildServer(): McpServer {
  const server = new McpServer(
    { name: "sdk-http", version: "2.0.0" },
    { capabilities: { logging: {} } },
  );
  server.registerTool(
    "echo",
    { inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool(
    "regional",
    {
      inputSchema: z.object({
        region: z.string().meta({ "x-mcp-header": "Region" }),
        retries: z.number().int().meta({ "x-mcp-header": "Retries" }).optional(),
        query: z.string(),
      }),
    },
    async ({ region, retries, query }) => ({
      content: [{ type: "text", text: `${region}/${retries ?? "-"}/${query}` }],
    }),
  );
  server.registerTool("noisy", { inputSchema: z.object({}) }, async (_args, ctx) => {
    await ctx.mcpReq.notify({
      method: "notifications/message",
      params: { level: "info", data: "working" },
    });
    return { content: [{ type: "text", text: "noisy done" }] };
  });
  return server;
}

async function exercise(client: McpClient) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ["echo", "noisy", "regional"]);
  const echo = await client.callTool("echo", { text: "héllo" });
  assert.deepEqual(echo.content, [{ type: "text", text: "héllo" }]);
  const regional = await client.callTool("regional", {
    region: "Zürich ",
    retries: 3,
    query: "SELECT 1",
  });
  assert.deepEqual(regional.content, [{ type: "text", text: "Zürich /3/SELECT 1" }]);
  const noisy = await client.callTool("noisy", {});
  assert.deepEqual(noisy.content, [{ type: "text", text: "noisy done" }]);
}

describe("against the official SDK's createMcpHandler", () => {
  let served: Awaited<ReturnType<typeof serveFetch>>;
  before(async () => {
    const handler = createMcpHandler(() => buildServer());
    served = await serveFetch((request) => handler.fetch(request));
  });
  after(() => served.close());

  it("modern: detected by the probe; headers accepted; JSON and SSE replies", async () => {
    const logs: unknown[] = [];
    const client = new McpClient({
      clientInfo,
      onNotification: (method, params) => {
        if (method === "notifications/message") logs.push(params.data);
      },
    });
    const transport = new HttpClientTransport(served.url, { flavourCache: new Map() });
    await client.connect(transport);
    try {
      assert.equal(client.era, "modern");
      assert.equal(transport.flavour, "modern");
      assert.equal(client.serverInfo?.name, "sdk-http");
      await exercise(client);
      assert.deepEqual(logs, ["working"]);
    } finally {
      await client.close();
    }
  });

  it("a call before any tools/list meets the SDK's HeaderMismatch, re-lists and succeeds", async () => {
    const seen: Array<[string | null, number]> = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      seen.push([new Headers(init?.headers).get("mcp-method"), response.status]);
      return response;
    };
    const client = new McpClient({ clientInfo });
    await client.connect(
      new HttpClientTransport(served.url, { flavourCache: new Map(), fetch: recordingFetch }),
    );
    try {
      const outcome = await client.callTool("regional", { region: "eu", query: "q" });
      assert.deepEqual(outcome.content, [{ type: "text", text: "eu/-/q" }]);
      assert.deepEqual(seen, [
        ["server/discover", 200],
        ["tools/call", 400],
        ["tools/list", 200],
        ["tools/call", 200],
      ]);
    } finally {
      await client.close();
    }
  });

  it("legacy stateless leg: initialize without a session", async () => {
    const client = new McpClient({ clientInfo, era: "legacy" });
    const transport = new HttpClientTransport(served.url, { flavourCache: new Map() });
    await client.connect(transport);
    try {
      assert.equal(client.era, "legacy");
      assert.equal(transport.flavour, "legacy");
      assert.equal(transport.sessionId, undefined);
      await exercise(client);
    } finally {
      await client.close();
    }
  });
});

describe("against the official SDK's sessionful legacy transport", () => {
  let served: Awaited<ReturnType<typeof serveFetch>>;
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const closedSessions: string[] = [];

  before(async () => {
    served = await serveFetch(async (request) => {
      const id = request.headers.get("mcp-session-id");
      const existing = id ? sessions.get(id) : undefined;
      if (existing) return existing.handleRequest(request);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
        onsessionclosed: (sessionId) => {
          sessions.delete(sessionId);
          closedSessions.push(sessionId);
        },
      });
      await buildServer().connect(transport);
      return transport.handleRequest(request);
    });
  });
  after(async () => {
    for (const transport of sessions.values()) await transport.close();
    await served.close();
  });

  it("auto-detects legacy, carries the session, and DELETEs it on close", async () => {
    const client = new McpClient({ clientInfo });
    const transport = new HttpClientTransport(served.url, { flavourCache: new Map() });
    await client.connect(transport);
    const sessionId = transport.sessionId;
    try {
      assert.equal(client.era, "legacy");
      assert.equal(transport.flavour, "legacy");
      assert.ok(sessionId && sessions.has(sessionId));
      await exercise(client);
    } finally {
      await client.close();
    }
    assert.deepEqual(closedSessions, [sessionId]);
  });
});
