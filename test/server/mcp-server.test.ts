import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { Session } from "../../src/protocol/session.js";
import { LEGACY_VERSIONS } from "../../src/protocol/versions.js";
import { McpServer } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";

const MODERN = "2026-07-28";

function modernMeta(extra: JsonObject = {}): JsonObject {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
    ...extra,
  };
}

function exampleServer(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}) {
  const server = new McpServer({
    serverInfo: { name: "example", version: "1.0.0" },
    instructions: "Use echo.",
    onError: () => {},
    ...options,
  });
  server.tool(
    {
      name: "echo",
      description: "Echoes text",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      },
    },
    (args) => String(args.text),
  );
  server.tool(
    {
      name: "add",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    },
    (args) => {
      const sum = Number(args.a) + Number(args.b);
      return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
    },
  );
  server.tool({ name: "chatty", inputSchema: { type: "object" } }, async (_args, context) => {
    await context.log.debug("debug line");
    await context.log.info("info line");
    await context.log.error("error line");
    await context.progress(1, 2, "half");
    await context.progress(2, 2, "done");
    return "ok";
  });
  server.resource(
    { uri: "test://static", name: "static", mimeType: "text/plain" },
    (uri) => [{ uri, mimeType: "text/plain", text: "hello" }],
    { cache: { ttlMs: 5000, cacheScope: "public" } },
  );
  server.resourceTemplate(
    { uriTemplate: "test://items/{id}", name: "item" },
    (uri, variables) => [{ uri, text: `item ${variables.id}` }],
    { complete: { id: (value) => ["1", "2", "10"].filter((id) => id.startsWith(value)) } },
  );
  server.prompt(
    { name: "greet", arguments: [{ name: "who", required: true }] },
    (args) => ({
      messages: [{ role: "user", content: { type: "text", text: `Hello ${args.who}` } }],
    }),
    { complete: { who: () => ["world", "friend"] } },
  );
  return server;
}

function connectRaw(server: McpServer) {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const notifications: { method: string; params: JsonObject }[] = [];
  const client = new Session(clientSide);
  for (const method of [
    "notifications/message",
    "notifications/tools/list_changed",
    "notifications/resources/updated",
  ]) {
    client.setNotificationHandler(method, (params) => notifications.push({ method, params }));
  }
  client.start();
  return { client, notifications };
}

describe("McpServer, modern era", () => {
  it("answers server/discover with versions, capabilities, serverInfo and caching hints", async () => {
    const { client } = connectRaw(exampleServer());
    const result = await client.request("server/discover", { _meta: modernMeta() });
    assert.equal(result.resultType, "complete");
    // Dual-era: the legacy versions are listed too (the client learns a fallback exists).
    assert.deepEqual(result.supportedVersions, [MODERN, ...LEGACY_VERSIONS]);
    assert.deepEqual(Object.keys(result.capabilities as JsonObject).sort(), [
      "completions",
      "logging",
      "prompts",
      "resources",
      "tools",
    ]);
    assert.equal(result.instructions, "Use echo.");
    assert.deepEqual((result._meta as JsonObject)["io.modelcontextprotocol/serverInfo"], {
      name: "example",
      version: "1.0.0",
    });
    assert.equal(result.ttlMs, 0);
    assert.equal(result.cacheScope, "public");
    await client.close();
  });

  it("serves a feature kind from its first registration to its last removal, capabilities to match", async () => {
    const server = new McpServer({
      serverInfo: { name: "empty", version: "1" },
      onError: () => {},
    });
    const { client } = connectRaw(server);
    const notFound = (error: unknown) => error instanceof JsonRpcError && error.code === -32601;
    await assert.rejects(client.request("tools/list", { _meta: modernMeta() }), notFound);
    const late = server.tool({ name: "late", inputSchema: { type: "object" } }, () => "here");
    const listed = await client.request("tools/list", { _meta: modernMeta() });
    assert.deepEqual(
      (listed.tools as JsonObject[]).map((tool) => tool.name),
      ["late"],
    );
    const called = await client.request("tools/call", { name: "late", _meta: modernMeta() });
    assert.deepEqual(called.content, [{ type: "text", text: "here" }]);
    const discovered = await client.request("server/discover", { _meta: modernMeta() });
    assert.ok((discovered.capabilities as JsonObject).tools);
    late.remove();
    await assert.rejects(client.request("tools/list", { _meta: modernMeta() }), notFound);
    const after = await client.request("server/discover", { _meta: modernMeta() });
    assert.equal((after.capabilities as JsonObject).tools, undefined);
    await client.close();
  });

  it("rejects missing or invalid _meta with -32602 and unknown versions with -32022", async () => {
    const { client } = connectRaw(exampleServer());
    await assert.rejects(client.request("tools/list", {}), { code: -32602 });
    await assert.rejects(
      client.request("tools/list", {
        _meta: { "io.modelcontextprotocol/protocolVersion": MODERN },
      }),
      { code: -32602 },
    );
    await assert.rejects(
      client.request("tools/list", {
        _meta: modernMeta({ "io.modelcontextprotocol/protocolVersion": "v999.0.0" }),
      }),
      (error: unknown) => {
        assert.ok(error instanceof JsonRpcError);
        assert.equal(error.code, -32022);
        assert.deepEqual(error.data, {
          supported: [MODERN, ...LEGACY_VERSIONS],
          requested: "v999.0.0",
        });
        return true;
      },
    );
    await client.close();
  });

  it("answers methods removed in 2026 with -32601", async () => {
    const { client } = connectRaw(exampleServer({ eras: "modern" }));
    for (const method of ["ping", "logging/setLevel", "resources/subscribe", "unknown/method"]) {
      await assert.rejects(
        client.request(method, { _meta: modernMeta() }),
        { code: -32601 },
        method,
      );
    }
    await assert.rejects(
      client.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "old", version: "1" },
      }),
      (error: unknown) => {
        assert.ok(error instanceof JsonRpcError);
        assert.equal(error.code, -32601);
        assert.match(error.message, /2026-07-28/);
        return true;
      },
    );
    await client.close();
  });

  it("lists tools in registration order and calls them, validating arguments", async () => {
    const { client } = connectRaw(exampleServer());
    const listed = await client.request("tools/list", { _meta: modernMeta() });
    assert.deepEqual(
      (listed.tools as { name: string }[]).map((tool) => tool.name),
      ["echo", "add", "chatty"],
    );
    assert.equal(listed.resultType, "complete");
    assert.equal(typeof listed.ttlMs, "number");
    const called = await client.request("tools/call", {
      name: "echo",
      arguments: { text: "hi" },
      _meta: modernMeta(),
    });
    assert.deepEqual(called.content, [{ type: "text", text: "hi" }]);
    assert.equal(called.resultType, "complete");
    assert.equal(called.ttlMs, undefined, "tools/call is not cacheable");
    const invalid = await client.request("tools/call", {
      name: "echo",
      arguments: { text: 5 },
      _meta: modernMeta(),
    });
    assert.equal(invalid.isError, true);
    assert.match((invalid.content as { text: string }[])[0]!.text, /text/);
    // Arguments that are no object break the request itself: -32602, not a tool error.
    for (const args of [[1], "text", 5]) {
      await assert.rejects(
        client.request("tools/call", { name: "echo", arguments: args, _meta: modernMeta() }),
        { code: -32602, message: 'tools/call "arguments" must be an object' },
      );
    }
    const structured = await client.request("tools/call", {
      name: "add",
      arguments: { a: 2, b: 3 },
      _meta: modernMeta(),
    });
    assert.deepEqual(structured.structuredContent, { sum: 5 });
    await assert.rejects(client.request("tools/call", { name: "missing", _meta: modernMeta() }), {
      code: -32602,
    });
    await client.close();
  });

  it("sends log notifications only at or above the request's logLevel, and progress when asked", async () => {
    const { client, notifications } = connectRaw(exampleServer());
    await client.request("tools/call", { name: "chatty", arguments: {}, _meta: modernMeta() });
    assert.equal(notifications.length, 0, "no logLevel, no logs");
    const progress: number[] = [];
    await client.request(
      "tools/call",
      {
        name: "chatty",
        arguments: {},
        _meta: modernMeta({ "io.modelcontextprotocol/logLevel": "info" }),
      },
      { onProgress: (update) => progress.push(update.progress) },
    );
    assert.deepEqual(
      notifications.map((entry) => entry.params.level),
      ["info", "error"],
    );
    assert.deepEqual(progress, [1, 2]);
    await client.close();
  });

  it("reads resources and templates; unknown resources give -32602 with data.uri", async () => {
    const { client } = connectRaw(exampleServer());
    const read = await client.request("resources/read", {
      uri: "test://static",
      _meta: modernMeta(),
    });
    assert.deepEqual(read.contents, [
      { uri: "test://static", mimeType: "text/plain", text: "hello" },
    ]);
    assert.equal(read.ttlMs, 5000);
    assert.equal(read.cacheScope, "public");
    const templated = await client.request("resources/read", {
      uri: "test://items/42",
      _meta: modernMeta(),
    });
    assert.equal((templated.contents as { text: string }[])[0]!.text, "item 42");
    assert.equal(templated.cacheScope, "private");
    await assert.rejects(
      client.request("resources/read", { uri: "test://nope", _meta: modernMeta() }),
      (error: unknown) => {
        assert.ok(error instanceof JsonRpcError);
        assert.equal(error.code, -32602);
        assert.deepEqual(error.data, { uri: "test://nope" });
        return true;
      },
    );
    const templates = await client.request("resources/templates/list", { _meta: modernMeta() });
    assert.equal((templates.resourceTemplates as JsonObject[]).length, 1);
    await client.close();
  });

  it("gets prompts, checks required arguments, and completes arguments", async () => {
    const { client } = connectRaw(exampleServer());
    const prompt = await client.request("prompts/get", {
      name: "greet",
      arguments: { who: "Ada" },
      _meta: modernMeta(),
    });
    assert.match(JSON.stringify(prompt.messages), /Hello Ada/);
    await assert.rejects(
      client.request("prompts/get", { name: "greet", arguments: {}, _meta: modernMeta() }),
      { code: -32602 },
    );
    const completion = await client.request("completion/complete", {
      ref: { type: "ref/resource", uri: "test://items/{id}" },
      argument: { name: "id", value: "1" },
      _meta: modernMeta(),
    });
    assert.deepEqual((completion.completion as JsonObject).values, ["1", "10"]);
    await client.close();
  });

  it("paginates lists with opaque cursors and rejects foreign cursors", async () => {
    const server = exampleServer({ pageSize: 2 });
    const { client } = connectRaw(server);
    const first = await client.request("tools/list", { _meta: modernMeta() });
    assert.equal((first.tools as JsonObject[]).length, 2);
    assert.equal(typeof first.nextCursor, "string");
    const second = await client.request("tools/list", {
      cursor: first.nextCursor,
      _meta: modernMeta(),
    });
    assert.deepEqual(
      (second.tools as { name: string }[]).map((tool) => tool.name),
      ["chatty"],
    );
    assert.equal(second.nextCursor, undefined);
    await assert.rejects(client.request("tools/list", { cursor: "garbage", _meta: modernMeta() }), {
      code: -32602,
    });
    await client.close();
  });

  it("accepts schema-library schemas (zod 4), publishing them as JSON Schema and validating with them", async () => {
    const server = exampleServer();
    server.tool(
      {
        name: "weather",
        inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(7) }),
        outputSchema: z.object({ summary: z.string() }),
      },
      (args) => ({
        content: [{ type: "text", text: "sunny" }],
        structuredContent: { summary: `sunny in ${args.city} for ${args.days} days` },
      }),
    );
    const { client } = connectRaw(server);
    const listed = await client.request("tools/list", { _meta: modernMeta() });
    const weather = (listed.tools as { name: string; inputSchema: JsonObject }[]).find(
      (tool) => tool.name === "weather",
    )!;
    assert.equal(weather.inputSchema.type, "object");
    assert.deepEqual(weather.inputSchema.required, ["city", "days"]);
    const ok = await client.request("tools/call", {
      name: "weather",
      arguments: { city: "Oslo", days: 3 },
      _meta: modernMeta(),
    });
    assert.deepEqual(ok.structuredContent, { summary: "sunny in Oslo for 3 days" });
    const bad = await client.request("tools/call", {
      name: "weather",
      arguments: { city: "Oslo", days: 9 },
      _meta: modernMeta(),
    });
    assert.equal(bad.isError, true);
    await client.close();
  });

  it("refuses tool names outside the spec's character set", () => {
    const server = exampleServer();
    assert.throws(() => server.tool({ name: "bad name" }, () => ""), /Invalid tool name/);
    assert.throws(() => server.tool({ name: "x".repeat(129) }, () => ""), /Invalid tool name/);
  });
});

describe("McpServer, legacy era", () => {
  async function initialize(client: Session, protocolVersion = "2025-11-25") {
    const result = await client.request("initialize", {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "old", version: "1" },
    });
    await client.notify("notifications/initialized");
    return result;
  }

  it("negotiates the version and serves results without modern fields", async () => {
    const { client } = connectRaw(exampleServer());
    const init = await initialize(client, "2025-06-18");
    assert.equal(init.protocolVersion, "2025-06-18");
    assert.deepEqual(init.serverInfo, { name: "example", version: "1.0.0" });
    assert.deepEqual((init.capabilities as JsonObject).resources, {
      subscribe: true,
      listChanged: true,
    });
    assert.ok((init.capabilities as JsonObject).logging);
    const fallback = await (async () => {
      const other = connectRaw(exampleServer());
      const result = await initialize(other.client, "1999-01-01");
      await other.client.close();
      return result;
    })();
    assert.equal(fallback.protocolVersion, "2025-11-25");

    assert.deepEqual(await client.request("ping"), {});
    const listed = await client.request("tools/list");
    assert.equal(listed.resultType, undefined);
    assert.equal(listed.ttlMs, undefined);
    await assert.rejects(client.request("resources/read", { uri: "test://nope" }), {
      code: -32002,
    });
    await client.close();
  });

  it("rejects requests before initialize", async () => {
    const { client } = connectRaw(exampleServer());
    await assert.rejects(client.request("tools/list"), { code: -32602 });
    const legacyOnly = connectRaw(exampleServer({ eras: "legacy" }));
    await assert.rejects(legacyOnly.client.request("tools/list"), { code: -32600 });
    await client.close();
    await legacyOnly.client.close();
  });

  it("honours logging/setLevel and sends list_changed and resource updates", async () => {
    const server = exampleServer();
    const { client, notifications } = connectRaw(server);
    await initialize(client);
    await client.request("logging/setLevel", { level: "error" });
    await client.request("tools/call", { name: "chatty", arguments: {} });
    assert.deepEqual(
      notifications.map((entry) => entry.params.level),
      ["error"],
    );
    notifications.length = 0;
    const late = server.tool({ name: "late" }, () => "late");
    await client.request("resources/subscribe", { uri: "test://static" });
    server.resourceUpdated("test://static");
    server.resourceUpdated("test://other");
    late.remove();
    await delay(20);
    assert.deepEqual(
      notifications.map((entry) => entry.method),
      [
        "notifications/tools/list_changed",
        "notifications/resources/updated",
        "notifications/tools/list_changed",
      ],
    );
    await client.close();
  });

  it("serves modern requests on a legacy connection statelessly", async () => {
    const { client } = connectRaw(exampleServer());
    await initialize(client);
    const modern = await client.request("tools/list", { _meta: modernMeta() });
    assert.equal(modern.resultType, "complete");
    await client.close();
  });
});
