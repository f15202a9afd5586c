import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { CLI, EVERYTHING_SERVER, type Running, startProcess, stop, waitFor } from "./run-cli.js";

/** A local stdio client reaching the remote server through `mcpwire gateway --stdio <url>`. */
async function connect(url: string, era: "modern" | "legacy", verbose: boolean) {
  let stderr = "";
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "gateway", "--stdio", url, ...(verbose ? ["--verbose"] : [])],
    stderr: "pipe",
    onStderr: (text) => {
      stderr += text;
    },
  });
  const client = new McpClient({ clientInfo: { name: "reverse-test", version: "1" }, era });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

describe("mcpwire gateway --stdio <url>", () => {
  let server: Running;
  let url: string;

  before(async () => {
    server = startProcess(process.execPath, [EVERYTHING_SERVER, "--http", "--port", "0"]);
    url = await waitFor("the HTTP server to listen", () => {
      if (server.child.exitCode !== null) throw new Error(`server exited: ${server.stderr()}`);
      return /^listening on (\S+)$/m.exec(server.stdout())?.[1];
    });
  });
  after(() => stop(server));

  for (const era of ["modern", "legacy"] as const) {
    it(`offers the HTTP server over stdio to a ${era} client`, async () => {
      const { client, transport, stderr } = await connect(url, era, true);
      try {
        assert.equal(client.era, era);
        assert.equal(client.serverInfo?.name, "mcpwire-everything-server");
        const tools = await client.listAllTools();
        assert.ok(tools.some((tool) => tool.name === "test_simple_text"));
        const result = await client.callTool("test_simple_text", {});
        assert.equal(result.content[0]?.type, "text");
        const read = await client.readResource("test://static-text");
        assert.equal(
          (read.contents[0] as { text: string }).text,
          "This is the content of the static text resource.",
        );
        const progress: number[] = [];
        await client.callTool(
          "test_tool_with_progress",
          {},
          {
            onProgress: (p) => progress.push(p.progress),
          },
        );
        assert.deepEqual(progress, [0, 50, 100]);
        // The relay speaks the client's era to the server: initialize only for legacy clients.
        if (era === "legacy")
          assert.match(stderr(), /^-> \{"jsonrpc":"2\.0","id":\d+,"method":"initialize"/m);
        else assert.doesNotMatch(stderr(), /"method":"initialize"/);
      } finally {
        await client.close();
      }
      // EOF on the gateway's stdin ends it with exit code 0.
      assert.deepEqual(await transport.exited, { code: 0, signal: null });
    });
  }

  it("passes error replies through, and rejects a non-HTTP target", async () => {
    const { client } = await connect(url, "modern", false);
    try {
      await assert.rejects(client.callTool("no_such_tool", {}));
      // The connection survives a failed request.
      const result = await client.callTool("test_simple_text", {});
      assert.equal(result.content[0]?.type, "text");
    } finally {
      await client.close();
    }
    const bad = startProcess(process.execPath, [CLI, "gateway", "--stdio", "tcp://127.0.0.1:1"]);
    const run = await bad.done;
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^mcpwire: gateway --stdio needs an http\(s\) URL/m);
  });
});
