/**
 * `mcpwire gateway --legacy-sse`: the deprecated HTTP+SSE transport (2024-11-05, GET /sse and
 * POST /messages) for old clients, in front of the reference server-everything. Driven by our
 * client held to HTTP+SSE and by the official SDK's SSEClientTransport, each also answering
 * an elicitation over the stream; off without the flag; the token applies.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client, SSEClientTransport } from "@modelcontextprotocol/client";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { endpointKey } from "../../src/transports/http/client/era.js";
import { type RunningGateway, SERVER_EVERYTHING, startGateway } from "./gateway-run.js";
import { stop } from "./run-cli.js";

const TOKEN = "legacy-sse-token-1234";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const ANSWER = {
  action: "accept",
  content: { name: "Old", color: "green", untilDate: "2030-01-01" },
};

describe("gateway --legacy-sse", () => {
  let run: RunningGateway;
  let sse: URL;
  before(async () => {
    run = await startGateway(SERVER_EVERYTHING, ["--legacy-sse", "--token", TOKEN]);
    sse = new URL("/sse", run.url);
  });
  after(() => stop(run.gateway));

  it("serves our client held to HTTP+SSE: tools, a call, an elicitation on the stream", async () => {
    const client = new McpClient({
      clientInfo: { name: "old-client", version: "1" },
      era: "legacy",
      cache: false,
      handlers: { elicitation: () => ANSWER },
    });
    // What an earlier run would have learnt: this endpoint speaks HTTP+SSE only.
    const flavourCache = new Map([[endpointKey(sse), "sse" as const]]);
    let transport: HttpClientTransport | undefined;
    await client.connect(() => {
      transport = new HttpClientTransport(sse, { flavourCache, headers: AUTH });
      return transport;
    });
    try {
      assert.equal(transport?.flavour, "sse");
      assert.equal(client.serverInfo?.name, "mcpwire-gateway");
      const tools = await client.listAllTools();
      assert.ok(tools.some((tool) => tool.name === "echo"));
      const echo = await client.callTool("echo", { message: "over sse" });
      assert.deepEqual(echo.content, [{ type: "text", text: "Echo: over sse" }]);
      const elicited = await client.callTool("trigger-elicitation-request", {});
      assert.match(JSON.stringify(elicited.content), /Name: Old/);
    } finally {
      await client.close();
    }
  });

  it("serves the official SDK's SSEClientTransport", async () => {
    const client = new Client(
      { name: "sdk-sse", version: "1" },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler("elicitation/create", async () => ANSWER as never);
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(new SSEClientTransport(sse, { requestInit: { headers: AUTH } }));
    try {
      const echo = await client.callTool({ name: "echo", arguments: { message: "sdk" } });
      assert.deepEqual(echo.content, [{ type: "text", text: "Echo: sdk" }]);
      const elicited = await client.callTool({
        name: "trigger-elicitation-request",
        arguments: {},
      });
      assert.match(JSON.stringify(elicited.content), /Name: Old/);
      assert.deepEqual(errors, []);
    } finally {
      await client.close();
    }
  });

  it("wants the token on the stream too", async () => {
    const response = await fetch(sse, { headers: { Accept: "text/event-stream" } });
    assert.equal(response.status, 401);
    await response.body?.cancel();
  });
});

describe("gateway without --legacy-sse", () => {
  it("serves no /sse", async () => {
    const run = await startGateway(SERVER_EVERYTHING);
    try {
      const response = await fetch(new URL("/sse", run.url), {
        headers: { Accept: "text/event-stream" },
      });
      assert.equal(response.status, 404);
      await response.body?.cancel();
    } finally {
      await stop(run.gateway);
    }
  });
});
