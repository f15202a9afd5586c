/**
 * The client against a real peer: the official reference server
 * (@modelcontextprotocol/server-everything) launched over stdio.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { isResourceNotFound } from "../../src/client/results.js";
import type { Era } from "../../src/protocol/versions.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { SupervisedStdioTransport } from "../../src/transports/stdio/supervisor.js";
import { until } from "../helpers/poll.js";

const require = createRequire(import.meta.url);
const serverScript = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("McpClient with server-everything over stdio", () => {
  it("detects its era, lists, calls, reads, prompts, pings and closes cleanly", async () => {
    const transports: StdioClientTransport[] = [];
    const factory = () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [serverScript, "stdio"],
        stderr: "pipe",
      });
      transports.push(transport);
      return transport;
    };
    const notifications: string[] = [];
    let rootsAsked = 0;
    const eraCache = new Map<string, Era>();
    const client = new McpClient({
      clientInfo: { name: "mcpwire-test", version: "0.1.0" },
      handlers: {
        roots: () => {
          rootsAsked++;
          return [{ uri: "file:///tmp", name: "tmp" }];
        },
      },
      onNotification: (method) => notifications.push(method),
      eraCache,
      requestTimeoutMs: 30_000,
    });
    try {
      await client.connect(factory, { serverKey: "server-everything" });
      // 2026.8.31 answers server/discover with -32601: a legacy server, found without a timeout.
      assert.equal(client.era, "legacy");
      assert.equal(eraCache.get("server-everything"), "legacy");
      assert.equal(transports.length, 1, "the probe did not cost the process");
      assert.equal(client.protocolVersion, "2025-11-25");
      assert.equal(client.serverInfo?.name, "mcp-servers/everything");
      assert.ok(client.serverCapabilities?.tools);
      assert.ok(client.instructions);

      const tools = await client.listAllTools();
      assert.ok(tools.some((tool) => tool.name === "echo"));
      const echoed = await client.callTool("echo", { message: "hello wire" });
      assert.deepEqual(echoed.content, [{ type: "text", text: "Echo: hello wire" }]);

      const resources = await client.listAllResources();
      const first = resources[0];
      assert.ok(first, "the server lists resources");
      const read = await client.readResource(first.uri);
      assert.equal(read.contents[0]?.uri, first.uri);
      // This server answers an unknown resource with -32602 "Resource ... not found".
      const missing = await client.readResource("demo://nope/x").catch((error: unknown) => error);
      assert.ok(isResourceNotFound(missing), String(missing));
      const templates = await client.listAllResourceTemplates();
      assert.ok(templates.length > 0);

      const prompts = await client.listAllPrompts();
      assert.ok(prompts.some((prompt) => prompt.name === "simple-prompt"));
      const prompt = await client.getPrompt("simple-prompt");
      assert.ok(prompt.messages.length > 0);

      await client.ping();
      await client.setLogLevel("debug");
      // The server asks for our roots after initialized, since we declared them.
      await until(() => rootsAsked >= 1, "roots/list from the server");
      assert.ok(notifications.includes("notifications/tools/list_changed"));
    } finally {
      await client.close();
    }
    for (const transport of transports) {
      const pid = transport.pid;
      await transport.exited;
      if (pid !== undefined) assert.equal(alive(pid), false, "no orphan server process");
    }
  });
});

describe("McpClient with server-everything under a supervisor", () => {
  it("re-initializes the restarted server after it is killed", async () => {
    const transport = new SupervisedStdioTransport({
      command: process.execPath,
      args: [serverScript, "stdio"],
      stderr: "pipe",
      restart: { initialDelayMs: 10 },
    });
    let rootsAsked = 0;
    const client = new McpClient({
      clientInfo: { name: "mcpwire-test", version: "0.1.0" },
      era: "legacy",
      requestTimeoutMs: 30_000,
      // This server asks for roots right after notifications/initialized: a visible handshake.
      handlers: {
        roots: () => {
          rootsAsked++;
          return [];
        },
      },
    });
    const pids: number[] = [];
    try {
      await client.connect(transport);
      const firstPid = transport.pid;
      assert.ok(firstPid !== undefined);
      pids.push(firstPid);
      await until(() => rootsAsked === 1, "roots/list from the first server");
      process.kill(firstPid, "SIGKILL");
      await until(
        () => transport.restarts === 1 && transport.pid !== firstPid,
        "the restart",
        15_000,
      );
      const echoed = await client.callTool("echo", { message: "again" });
      await until(() => rootsAsked === 2, "roots/list from the restarted server");
      assert.deepEqual(echoed.content, [{ type: "text", text: "Echo: again" }]);
      const secondPid = transport.pid;
      if (secondPid !== undefined) pids.push(secondPid);
    } finally {
      await client.close();
    }
    await until(() => pids.every((pid) => !alive(pid)), "both servers gone", 10_000);
  });
});
