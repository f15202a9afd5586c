/**
 * The gateway between two official peers: `mcpwire gateway` serves the official
 * `@modelcontextprotocol/server-everything` (started in stdio mode) over Streamable HTTP, and
 * the official `@modelcontextprotocol/client` drives it in both eras: modern 2026-07-28
 * (pinned) and legacy (the SDK's default). Stopping the gateway leaves no process behind.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { treeAlive } from "../../src/transports/stdio/process-tree.js";
import { type Running, startCli, stop, waitFor } from "./run-cli.js";

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

const ERAS = [
  {
    era: "modern",
    version: "2026-07-28",
    options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } as ClientOptions,
  },
  { era: "legacy", version: "2025-11-25", options: {} as ClientOptions },
] as const;

describe("mcpwire gateway: official client → gateway → official server-everything", () => {
  let gateway: Running;
  let url: string;
  let childPid: number;

  before(async () => {
    gateway = startCli([
      "gateway",
      "--listen",
      "127.0.0.1:0",
      "--",
      process.execPath,
      EVERYTHING,
      "stdio",
    ]);
    url = await waitFor(
      "the gateway to listen",
      () => {
        if (gateway.child.exitCode !== null) throw new Error(`gateway exited: ${gateway.stderr()}`);
        return /^listening on (\S+)$/m.exec(gateway.stderr())?.[1];
      },
      30_000,
    );
    childPid = Number(/^child running \(pid (\d+)\)$/m.exec(gateway.stderr())?.[1]);
    assert.ok(childPid > 0, gateway.stderr());
  });
  after(() => stop(gateway));

  for (const { era, version, options } of ERAS) {
    it(`${era} client: lists tools, calls echo, reads a resource`, async () => {
      const client = new Client({ name: "gateway-interop", version: "1.0.0" }, options);
      const errors: Error[] = [];
      client.onerror = (error) => errors.push(error);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), version);
        assert.equal(client.getServerVersion()?.name, "mcpwire-gateway");
        const { tools } = await client.listTools();
        assert.ok(
          tools.some((tool) => tool.name === "echo"),
          tools.map((tool) => tool.name).join(),
        );
        const echo = await client.callTool({ name: "echo", arguments: { message: `via ${era}` } });
        assert.deepEqual(echo.content, [{ type: "text", text: `Echo: via ${era}` }]);
        const { resources } = await client.listResources();
        const document = resources.find((resource) =>
          resource.uri.startsWith("demo://resource/static/document/"),
        );
        assert.ok(document, resources.map((resource) => resource.uri).join());
        const read = await client.readResource({ uri: document.uri });
        assert.equal(read.contents[0]?.uri, document.uri);
        const content = read.contents[0];
        assert.ok(content && "text" in content && content.text.length > 0);
        assert.deepEqual(errors, []);
      } finally {
        await client.close();
      }
    });
  }

  it("stops with SIGTERM and leaves no orphan", async () => {
    assert.ok(treeAlive(childPid));
    gateway.child.kill("SIGTERM");
    const run = await gateway.done;
    assert.equal(run.code, 0, run.stderr);
    await waitFor("the child's process group to be gone", () =>
      treeAlive(childPid) ? undefined : true,
    );
  });
});
