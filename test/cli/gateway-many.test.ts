/**
 * `mcpwire gateway --config FILE` with several servers: each stdio entry at
 * /servers/<name>/mcp (our everything example, the official everything server, a server that
 * crashes, one that dies at start), both eras; /healthz per server; one server's crash leaves
 * the others serving; --deny-tools on <server>_<tool>; --audit-log lines naming the server;
 * SIGTERM stops every child.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { McpServer, type ToolHandle } from "../../src/server/index.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { waitFor } from "../helpers/poll.js";
import { processGoneWithin } from "../helpers/process-alive.js";
import {
  connectClient,
  fixture,
  OUR_EVERYTHING,
  SERVER_EVERYTHING,
  startConfigGateway,
} from "./gateway-run.js";
import { type Running, stop } from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

interface Health {
  status: string;
  servers: Record<string, { restarts: number; status: string } | undefined>;
}

describe("gateway over a whole config file", () => {
  let dir: string;
  let gateway: Running;
  let origin: string;
  let auditPath: string;

  let web: ServedHttp;
  /** tools/list requests the web upstream answered. */
  let webLists = 0;
  let extra: ToolHandle | undefined;
  let remote: McpServer;
  before(async () => {
    // An HTTP upstream: a server of our own on 127.0.0.1, as a config file's url entry.
    remote = new McpServer({ serverInfo: { name: "web", version: "1" } });
    remote.use("tools/list", (_ctx, next) => {
      webLists += 1;
      return next();
    });
    remote.tool({ name: "hello", inputSchema: { type: "object" } }, () => "hello from the web");
    remote.tool({ name: "secret" }, () => "never offered");
    remote.resource({ uri: "mem://notes", name: "notes" }, (uri) => [
      { uri, text: "remote notes" },
    ]);
    web = await serveHttp(remote);
    dir = mkdtempSync(join(tmpdir(), "mcpwire-gw-many-"));
    auditPath = join(dir, "audit.jsonl");
    const config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          ours: { command: process.execPath, args: OUR_EVERYTHING },
          official: { command: process.execPath, args: SERVER_EVERYTHING },
          crashy: { command: process.execPath, args: [fixture("crashing-server")] },
          broken: { command: process.execPath, args: [fixture("crashing-server"), "--at-start"] },
          web: {
            url: web.url,
            tools: {
              deny: ["secret"],
              rename: { hello: "wave" },
              descriptions: { hello: "Waves" },
            },
          },
          gone: { url: "http://127.0.0.1:9/mcp" },
        },
      }),
    );
    ({ gateway, origin } = await startConfigGateway(config, [
      "--deny-tools",
      "ours_test_error_*",
      "--audit-log",
      auditPath,
    ]));
  });

  after(async () => {
    if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL");
    await gateway.done;
    await web.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const url = (name: string) => `${origin}/servers/${name}/mcp`;

  it("says where each server is, and which could not start or are not stdio", () => {
    const log = gateway.stderr();
    assert.match(log, new RegExp(`serving them all at ${origin}/mcp`));
    for (const name of ["ours", "official", "crashy"]) {
      assert.match(log, new RegExp(`serving ${name} at ${origin}/servers/${name}/mcp`));
    }
    assert.match(log, /\[broken\] could not start: .*exit code 3|\[broken\] could not start/);
    assert.match(log, /fatal: config file \/etc\/crashing.json is missing/);
    assert.match(log, /web: remote http:\/\/127\.0\.0\.1:\d+\/mcp/);
    assert.match(log, /\[gone\] could not start: http:\/\/127\.0\.0\.1:9\/mcp did not answer/);
  });

  for (const era of ["modern", "legacy"] as const) {
    it(`serves each server with its own names (${era})`, async () => {
      const ours = await connectClient(url("ours"), era);
      const official = await connectClient(url("official"), era);
      try {
        const ourTools = (await ours.client.listTools()).tools.map((tool) => tool.name);
        assert.ok(ourTools.includes("test_simple_text"));
        const text = await ours.client.callTool("test_simple_text", {});
        assert.equal(text.isError, undefined);
        const officialTools = (await official.client.listTools()).tools.map((tool) => tool.name);
        assert.ok(officialTools.includes("echo"), officialTools.join());
        const echoed = await official.client.callTool("echo", { message: "hi" });
        assert.match((echoed.content[0] as { text: string }).text, /hi/);
      } finally {
        await ours.client.close();
        await official.client.close();
      }
    });
  }

  for (const era of ["modern", "legacy"] as const) {
    it(`serves them all at /mcp, names prefixed and routed back (${era})`, async () => {
      const { client } = await connectClient(`${origin}/mcp`, era);
      try {
        const tools = (await client.listTools()).tools.map((tool) => tool.name);
        for (const name of ["ours_test_simple_text", "official_echo", "crashy_crash", "web_wave"]) {
          assert.ok(tools.includes(name), `${name} missing from ${tools.join()}`);
        }
        assert.ok(
          !tools.some(
            (name) => name.startsWith("broken_") || !/^(ours|official|crashy|web)_/.test(name),
          ),
        );
        assert.ok(!tools.includes("ours_test_error_handling"), "a denied tool is listed");
        // The entry's own rules: hello offered as wave, with its description; secret hidden.
        const hello = await client.callTool("web_wave", {});
        assert.equal((hello.content[0] as { text: string }).text, "hello from the web");
        assert.ok(!tools.includes("web_hello") && !tools.includes("web_secret"));
        for (const hidden of ["web_hello", "web_secret"]) {
          const refused = await client.callTool(hidden, {}).catch((error) => error);
          assert.equal(refused.message, `Unknown tool: ${hidden}`);
        }
        const notes = await client.readResource("mem://web/notes");
        assert.equal((notes.contents[0] as { text: string }).text, "remote notes");
        const echoed = await client.callTool("official_echo", { message: "through /mcp" });
        assert.match((echoed.content[0] as { text: string }).text, /through \/mcp/);
        assert.equal((await client.callTool("ours_test_simple_text", {})).isError, undefined);
        const unknown = await client.callTool("nobody_echo", {}).catch((error) => error);
        assert.equal(unknown.message, "Unknown tool: nobody_echo");

        const prompt = await client.getPrompt("ours_test_simple_prompt");
        assert.ok(prompt.messages.length > 0);

        const resources = (await client.listResources()).resources.map((resource) => resource.uri);
        assert.ok(resources.includes("test://ours/static-text"), resources.join());
        const read = await client.readResource("test://ours/static-text");
        assert.equal(read.contents[0]?.uri, "test://ours/static-text");
        const missing = await client
          .readResource("test://nobody/static-text")
          .catch((error) => error);
        assert.ok(missing instanceof JsonRpcError);
      } finally {
        await client.close();
      }
    });
  }

  for (const era of ["modern", "legacy"] as const) {
    it(`runs a task through /mcp, its tasks/* routed to its server (${era})`, async () => {
      const { client } = await connectClient(`${origin}/mcp`, era, { tasks: true });
      try {
        // A 2025-11-25 client asks for a task only for a tool whose listing allows one.
        await client.listTools();
        const created = (await client.callTool(
          "ours_slow_compute",
          { seconds: 0.2, label: "routed" },
          { returnTaskHandle: true, task: true },
        )) as unknown as { taskId?: string; task?: { taskId: string } };
        const taskId = created.task?.taskId ?? created.taskId ?? "";
        assert.ok(taskId.length > 0, JSON.stringify(created));
        const result = await client.callTool("ours_slow_compute", {
          seconds: 0.2,
          label: "waited",
        });
        assert.match((result.content[0] as { text: string }).text, /Computed waited after 0.2 s/);
        const status = await client.tasks.get(taskId);
        assert.ok(["working", "completed"].includes(String(status.status)), JSON.stringify(status));
        const foreign = await client.tasks.get("no-such-task").catch((error) => error);
        assert.ok(foreign instanceof JsonRpcError);
      } finally {
        await client.close();
      }
    });
  }

  it("passes one server's list change and resource updates on to a listener on /mcp", async () => {
    const listener = await connectClient(`${origin}/mcp`, "modern");
    const trigger = await connectClient(`${origin}/mcp`, "modern");
    try {
      const watched = "test://ours/watched-resource";
      const stream = listener.client.listen({
        toolsListChanged: true,
        resourceSubscriptions: [watched],
      });
      assert.deepEqual(await stream.acknowledged, {
        toolsListChanged: true,
        resourceSubscriptions: [watched],
      });
      const iterator = stream[Symbol.asyncIterator]();
      await trigger.client.callTool("ours_test_trigger_tool_change", {});
      assert.equal((await iterator.next()).value?.method, "notifications/tools/list_changed");
      await trigger.client.callTool("ours_test_update_resource", {
        uri: "test://watched-resource",
      });
      // Adding and removing the tool may have made a second list change; then the update comes.
      let update = (await iterator.next()).value;
      while (update?.method === "notifications/tools/list_changed") {
        update = (await iterator.next()).value;
      }
      assert.equal(update?.method, "notifications/resources/updated");
      assert.equal(update?.params.uri, watched);
      await stream.close();
    } finally {
      await listener.client.close();
      await trigger.client.close();
    }
  });

  it("keeps each server's list for /mcp until that server tells of a change", async () => {
    const { client } = await connectClient(`${origin}/mcp`, "modern");
    try {
      const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
      await names();
      const before = webLists;
      assert.ok((await names()).includes("web_wave"));
      await names();
      assert.equal(webLists, before, "the web server was not asked again");
      // A change on the web server: its list_changed reaches the gateway, which lists it again.
      extra = remote.tool({ name: "later", inputSchema: { type: "object" } }, () => "later");
      const listed = await waitFor("the new tool on /mcp", async () => {
        const now = await names();
        return now.includes("web_later") ? now : undefined;
      });
      assert.ok(listed.includes("web_wave"));
      assert.ok(webLists > before);
    } finally {
      extra?.remove();
      await client.close();
    }
  });

  it("applies an entry's tool rules on its own endpoint too", async () => {
    const { client } = await connectClient(url("web"), "legacy");
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => [tool.name, tool.description]),
        [["wave", "Waves"]],
      );
      assert.equal(
        ((await client.callTool("wave", {})).content[0] as { text: string }).text,
        "hello from the web",
      );
      const refused = await client.callTool("secret", {}).catch((error) => error);
      assert.equal(refused.message, "Unknown tool: secret");
    } finally {
      await client.close();
    }
  });

  it("hides and refuses what --deny-tools names, on <server>_<tool>", async () => {
    const ours = await connectClient(url("ours"), "modern");
    try {
      const tools = (await ours.client.listTools()).tools.map((tool) => tool.name);
      assert.ok(!tools.includes("test_error_handling") && tools.includes("test_simple_text"));
      const refused = await ours.client.callTool("test_error_handling", {}).catch((error) => error);
      assert.ok(refused instanceof JsonRpcError);
      assert.equal(refused.message, "Unknown tool: test_error_handling");
    } finally {
      await ours.client.close();
    }
  });

  it("reports each server in /healthz, and one crash leaves the others serving", async () => {
    const first = (await (await fetch(`${origin}/healthz`)).json()) as Health;
    assert.equal(first.status, "degraded");
    assert.equal(first.servers.ours?.status, "ok");
    assert.equal(first.servers.official?.status, "ok");
    assert.equal(first.servers.broken?.status, "down");
    assert.equal(first.servers.web?.status, "ok");
    assert.equal(first.servers.gone?.status, "down");
    const refusedBroken = await fetch(url("broken"), { method: "POST" });
    assert.equal(refusedBroken.status, 503);

    const crashy = await connectClient(url("crashy"), "modern");
    await crashy.client.callTool("crash", {}).catch(() => {});
    await crashy.client.close();
    const ours = await connectClient(url("ours"), "legacy");
    try {
      assert.equal((await ours.client.callTool("test_simple_text", {})).isError, undefined);
    } finally {
      await ours.client.close();
    }
    let after: Health | undefined;
    for (let i = 0; i < 100; i++) {
      after = (await (await fetch(`${origin}/healthz`)).json()) as Health;
      if ((after?.servers.crashy?.restarts ?? 0) >= 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok((after?.servers.crashy?.restarts ?? 0) >= 1, JSON.stringify(after));
    assert.equal(after?.servers.ours?.restarts, 0);
    assert.equal((await fetch(`${origin}/nowhere`)).status, 404);
  });

  it("writes one audit line per tool call naming the server, and stops every child on SIGTERM", async () => {
    const pids = [...gateway.stderr().matchAll(/: child running \(pid (\d+)\)/g)].map((m) =>
      Number(m[1]),
    );
    assert.equal(pids.length, 3);
    gateway.child.kill("SIGTERM");
    const run = await gateway.done;
    assert.equal(run.code, 0, run.stderr);
    for (const pid of pids)
      assert.ok(await processGoneWithin(pid, 5_000), `child ${pid} left running`);

    const lines = readFileSync(auditPath, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const denied = lines.find((line) => line.name === "test_error_handling");
    assert.equal(denied?.server, "ours");
    assert.equal(denied?.outcome, "error");
    const echo = lines.filter((line) => line.server === "official" && line.name === "echo");
    assert.equal(echo.length, 2);
    assert.ok(echo.every((line) => line.outcome === "ok" && line.arguments === undefined));
    assert.ok(
      lines.every((line) => line.method === "tools/call" && typeof line.durationMs === "number"),
    );
  });
});

describe("gateway over a config file: usage", () => {
  let dir: string;
  let config: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "mcpwire-gw-usage-"));
    config = join(dir, "mcp.json");
    const entry = { command: process.execPath, args: [fixture("gateway-plain-server")] };
    writeFileSync(config, JSON.stringify({ mcpServers: { a: entry, b: entry } }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses what only one server can have, before starting anything", async () => {
    for (const extra of [["--path", "/x"], ["--legacy-sse"], ["--listen", "tcp://127.0.0.1:0"]]) {
      const run = await runInProcess(["gateway", "--config", config, ...extra]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        /with several servers the gateway serves HTTP at \/servers\/<name>\/mcp/,
      );
    }
  });

  it("refuses malformed tool rules in an entry, naming them", async () => {
    const bad = join(dir, "bad.json");
    const entry = { command: process.execPath, args: [fixture("gateway-plain-server")] };
    for (const [tools, message] of [
      [{ allow: "x" }, /"tools.allow" must be an array of non-empty strings/],
      [{ rename: { a: "x", b: "x" } }, /"tools.rename" gives two tools the name x/],
      [{ hide: ["x"] }, /unknown "tools.hide"/],
    ] as const) {
      writeFileSync(bad, JSON.stringify({ mcpServers: { a: { ...entry, tools }, b: entry } }));
      const run = await runInProcess(["gateway", "--config", bad]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    }
  });

  it("takes another separator for /mcp, and refuses one outside the tool-name characters", async () => {
    const bad = await runInProcess(["gateway", "--config", config, "--separator", "/"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--separator must be 1 to 8 of the characters tool names allow/);
    const { gateway, origin } = await startConfigGateway(config, ["--separator", "."]);
    try {
      assert.match(gateway.stderr(), /names prefixed with <server>\./);
      const { client } = await connectClient(`${origin}/mcp`, "modern");
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      assert.deepEqual(names, ["a.noop", "b.noop"]);
      assert.equal((await client.callTool("b.noop", {})).isError, undefined);
      await client.close();
    } finally {
      await stop(gateway);
    }
  });

  it("names an unknown server of --server a,b, and wants --audit-log for --audit-arguments", async () => {
    const unknown = await runInProcess(["gateway", "--config", config, "--server", "a,zz"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /zz/);
    const lonely = await runInProcess(["gateway", "--config", config, "--audit-arguments"]);
    assert.equal(lonely.code, 2);
    assert.match(lonely.stderr, /--audit-arguments goes with --audit-log/);
  });
});
