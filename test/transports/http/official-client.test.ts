/**
 * The official TypeScript client SDK (v2) and its Streamable HTTP transport against our HTTP
 * server, pinned to 2026-07-28. The SDK sends the mirrored headers and validates every result,
 * so a wrong status, header check or result shape on our side fails here.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startTestServer } from "./http-helpers.js";

type Served = Awaited<ReturnType<typeof startTestServer>>;

describe("official client over Streamable HTTP (2026-07-28)", () => {
  let served: Served;
  let client: Client;
  const errors: Error[] = [];

  before(async () => {
    served = await startTestServer();
    client = new Client(
      { name: "mcpwire-http-interop", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    client.onerror = (error) => errors.push(error);
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  });
  after(async () => {
    await client.close();
    await served.close();
  });

  it("lists tools, including one with x-mcp-header annotations", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ["echo", "steps", "route"]) assert.ok(names.includes(name), name);
  });

  it("calls a tool with progress over the SSE reply", async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "steps", arguments: {} },
      { onprogress: (update) => progress.push(update.progress) },
    );
    assert.deepEqual(progress, [1, 2, 3]);
    assert.deepEqual(result.content, [{ type: "text", text: "done" }]);
  });

  it("calls a tool whose arguments are mirrored into Mcp-Param-* headers", async () => {
    const args = { region: "Hello, 世界", count: 7, flag: false, place: { zone: " z " } };
    const result = await client.callTool({ name: "route", arguments: args });
    assert.equal(result.isError, undefined);
    const content = result.content as Array<{ type: string; text: string }>;
    assert.deepEqual(JSON.parse(content[0]?.text ?? "null"), args);
  });

  it("reads resources, plain and with a non-ASCII URI", async () => {
    const plain = await client.readResource({ uri: "mem://note" });
    assert.deepEqual(plain.contents, [{ uri: "mem://note", text: "remember" }]);
    const wide = await client.readResource({ uri: "mem://ünï code" });
    assert.equal((wide.contents[0] as { text: string }).text, "wide");
  });

  it("gets a prompt", async () => {
    const prompt = await client.getPrompt({ name: "hello", arguments: { who: "sdk" } });
    assert.deepEqual(prompt.messages[0]?.content, { type: "text", text: "hi sdk" });
  });

  it("reported no transport or protocol errors", () => {
    assert.deepEqual(errors, []);
  });
});
