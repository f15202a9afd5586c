import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type Running, STDIO_SERVER, startCli, stop, waitFor } from "./run-cli.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startGateway(
  extra: string[] = [],
): Promise<{ gateway: Running; url: string; pid: number }> {
  const gateway = startCli([
    "gateway",
    "--listen",
    "127.0.0.1:0",
    ...extra,
    "--",
    process.execPath,
    STDIO_SERVER,
  ]);
  const url = await waitFor("the gateway to listen", () => {
    if (gateway.child.exitCode !== null) throw new Error(`gateway exited: ${gateway.stderr()}`);
    return /^listening on (\S+)$/m.exec(gateway.stderr())?.[1];
  });
  const pid = Number(/^child running \(pid (\d+)\)$/m.exec(gateway.stderr())?.[1]);
  assert.ok(pid > 0, gateway.stderr());
  return { gateway, url, pid };
}

async function connect(url: string, era: "modern" | "legacy", headers?: Record<string, string>) {
  const client = new McpClient({ clientInfo: { name: "gateway-test", version: "1" }, era });
  // A fresh flavour cache per client: the process-wide one would remember the other era's answer.
  const flavourCache = new Map();
  await client.connect(() => new HttpClientTransport(url, { headers, flavourCache }));
  return client;
}

describe("mcpwire gateway in front of a stdio server", () => {
  let gateway: Running;
  let url: string;
  let childPid: number;

  before(async () => {
    ({ gateway, url, pid: childPid } = await startGateway());
  });
  after(() => stop(gateway));

  for (const era of ["modern", "legacy"] as const) {
    it(`serves ${era} HTTP clients with the child's tools, resources, prompts and completions`, async () => {
      const client = await connect(url, era);
      try {
        assert.equal(client.era, era);
        assert.equal(client.serverInfo?.name, "mcpwire-gateway");
        assert.match(client.instructions ?? "", /slow_count reports progress/);
        const tools = await client.listAllTools();
        assert.deepEqual(
          tools.map((tool) => tool.name),
          ["echo", "add", "slow_count", "noisy"],
        );
        const echo = await client.callTool("echo", { text: `via ${era}` });
        assert.deepEqual(echo.content, [{ type: "text", text: `via ${era}` }]);
        const progress: number[] = [];
        await client.callTool(
          "slow_count",
          { n: 3 },
          { onProgress: (p) => progress.push(p.progress) },
        );
        assert.deepEqual(progress, [1, 2, 3]);
        const read = await client.readResource("example://colors/green");
        assert.equal((read.contents[0] as { text: string }).text, "green is a fine color");
        const prompt = await client.getPrompt("greet", { name: "Grace" });
        assert.equal(prompt.description, "Greeting for Grace");
        const completion = await client.complete(
          { type: "ref/prompt", name: "greet" },
          { name: "name", value: "Gr" },
        );
        assert.deepEqual(completion.completion.values, ["Grace"]);
      } finally {
        await client.close();
      }
    });
  }

  it("restarts the child after kill -9 and goes on serving", async () => {
    assert.ok(alive(childPid));
    process.kill(childPid, "SIGKILL");
    const restarted = await waitFor("the child to be restarted", () => {
      const match = /^-- child restarted \(pid (\d+)\)$/m.exec(gateway.stderr());
      return match ? Number(match[1]) : undefined;
    });
    assert.notEqual(restarted, childPid);
    const client = await connect(url, "modern");
    try {
      const echo = await client.callTool("echo", { text: "after the crash" });
      assert.deepEqual(echo.content, [{ type: "text", text: "after the crash" }]);
    } finally {
      await client.close();
    }
    childPid = restarted;
  });

  it("checks Origin and Host like the HTTP server (loopback only by default)", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const evil = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "http://evil.example" },
      body,
    });
    assert.equal(evil.status, 403);
    await evil.body?.cancel();
  });

  it("stops with SIGTERM and leaves no child behind", async () => {
    gateway.child.kill("SIGTERM");
    const run = await gateway.done;
    assert.equal(run.code, 0, run.stderr);
    await waitFor("the child to be gone", () => (alive(childPid) ? undefined : true));
  });
});

describe("mcpwire gateway options", () => {
  it("--token requires the bearer token", async () => {
    const { gateway, url } = await startGateway(["--token", "s3cret"]);
    try {
      const denied = await fetch(url, { method: "POST", body: "{}" });
      assert.equal(denied.status, 401);
      assert.match(denied.headers.get("www-authenticate") ?? "", /^Bearer/);
      await denied.body?.cancel();
      const client = await connect(url, "modern", { Authorization: "Bearer s3cret" });
      assert.equal((await client.callTool("echo", { text: "ok" })).content.length, 1);
      await client.close();
    } finally {
      await stop(gateway);
    }
  });

  it("serves modern HTTP clients when the child is spoken to as legacy (--era legacy)", async () => {
    const { gateway, url } = await startGateway(["--era", "legacy", "--verbose"]);
    try {
      const client = await connect(url, "modern");
      const echo = await client.callTool("echo", { text: "bridged" });
      assert.deepEqual(echo.content, [{ type: "text", text: "bridged" }]);
      await client.close();
      // The child was reached with initialize, the HTTP client with per-request _meta.
      assert.match(gateway.stderr(), /^-> \{"jsonrpc":"2\.0","id":1,"method":"initialize"/m);
    } finally {
      await stop(gateway);
    }
  });
});

describe("mcpwire gateway relays the child's questions to the HTTP client", () => {
  const EVERYTHING = new URL("../../examples/everything-server.js", import.meta.url).pathname;
  for (const childEra of ["modern", "legacy"] as const) {
    for (const httpEra of ["modern", "legacy"] as const) {
      it(`elicitation: ${childEra} child, ${httpEra} HTTP client`, async () => {
        const gateway = startCli([
          "gateway",
          "--era",
          childEra,
          "--",
          process.execPath,
          EVERYTHING,
          "--stdio",
        ]);
        try {
          const url = await waitFor("the gateway to listen", () => {
            if (gateway.child.exitCode !== null) throw new Error(gateway.stderr());
            return /^listening on (\S+)$/m.exec(gateway.stderr())?.[1];
          });
          const asked: string[] = [];
          const client = new McpClient({
            clientInfo: { name: "gateway-test", version: "1" },
            era: httpEra,
            handlers: {
              elicitation: (params) => {
                asked.push(String(params.message));
                return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
              },
            },
          });
          await client.connect(() => new HttpClientTransport(url, { flavourCache: new Map() }));
          try {
            const result = await client.callTool("test_elicitation", { message: "Who?" });
            assert.deepEqual(asked, ["Who?"]);
            assert.match(
              (result.content[0] as { text: string }).text,
              /action=accept, content=\{"username":"ada","email":"ada@example.com"\}/,
            );
          } finally {
            await client.close();
          }
        } finally {
          await stop(gateway);
        }
      });
    }
  }
});
