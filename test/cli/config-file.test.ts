import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CLI, type CliRun, listeningAddress, startProcess, stop } from "./run-cli.js";

const ENV_SERVER = new URL("../fixtures/cli-env-server.js", import.meta.url).pathname;
const SECRET = "config-secret-do-not-print";
const dir = realpathSync(mkdtempSync(join(tmpdir(), "mcpwire-config-")));
mkdirSync(join(dir, "work"));

/** The CLI run in `cwd` with MCPWIRE_TEST_TOKEN=SECRET in its environment. */
function run(args: string[], cwd = dir): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, MCPWIRE_TEST_TOKEN: SECRET },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  return new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function writeConfig(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return path;
}

/** `${inner}` as the config files write it. */
const ref = (inner: string) => ["$", "{", inner, "}"].join("");

const hostConfig = writeConfig("mcp.json", {
  mcpServers: {
    local: {
      command: process.execPath,
      args: [ENV_SERVER],
      env: {
        FROM_CONFIG: "plain",
        TOKEN: ref("MCPWIRE_TEST_TOKEN"),
        WITH_DEFAULT: ref("NOPE_X:-dflt"),
      },
      cwd: "work",
    },
    remote: {
      type: "http",
      url: "http://127.0.0.1:9/mcp",
      headers: { Authorization: `Bearer ${ref("MCPWIRE_TEST_TOKEN")}` },
    },
  },
});

const getenv = (name: string) => ["call", "getenv", JSON.stringify({ name })];

describe("MCP config files: --config FILE --server NAME, .mcp.json, mcpwire servers", () => {
  it("starts a stdio entry with its args, env (variables expanded) and cwd (relative to the file)", async () => {
    for (const [name, value] of [
      ["FROM_CONFIG", "plain"],
      ["TOKEN", SECRET],
      ["WITH_DEFAULT", "dflt"],
    ]) {
      const result = await run([...getenv(name!), "--config", hostConfig, "--server", "local"]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${value}\n`);
    }
    const cwd = await run(["call", "cwd", "--config", hostConfig, "--server", "local"]);
    assert.equal(cwd.stdout, `${join(dir, "work")}\n`);
    const overridden = await run([
      ...getenv("FROM_CONFIG"),
      "--config",
      hostConfig,
      "--server",
      "local",
      "-e",
      "FROM_CONFIG=flag",
    ]);
    assert.equal(overridden.stdout, "flag\n");
  });

  it("finds .mcp.json in the working directory, and reads VS Code's servers shape", async () => {
    writeConfig(".mcp.json", {
      servers: {
        vs: {
          type: "stdio",
          command: process.execPath,
          args: [ENV_SERVER],
          env: { WHO: "vscode" },
        },
      },
    });
    const named = await run([...getenv("WHO"), "--server", "vs"]);
    assert.equal(named.code, 0, named.stderr);
    assert.equal(named.stdout, "vscode\n");
    // With a single entry, --config alone is enough.
    const only = await run([...getenv("WHO"), "--config", ".mcp.json"]);
    assert.equal(only.stdout, "vscode\n");
  });

  it("reaches a remote entry with its headers, through a gateway started from the same file", async () => {
    const gatewayConfig = writeConfig("gateway.json", {
      mcpServers: {
        child: { command: process.execPath, args: [ENV_SERVER], env: { ROLE: "child" } },
      },
    });
    const gateway = startProcess(process.execPath, [
      CLI,
      "gateway",
      "--token",
      SECRET,
      "--config",
      gatewayConfig,
      "--server",
      "child",
    ]);
    try {
      const url = await listeningAddress(gateway, "stderr");
      const remoteConfig = writeConfig("remote.json", {
        mcpServers: {
          remote: {
            type: "http",
            url,
            headers: { Authorization: `Bearer ${ref("MCPWIRE_TEST_TOKEN")}` },
          },
          anonymous: { url },
        },
      });
      const ok = await run([
        ...getenv("ROLE"),
        "--config",
        remoteConfig,
        "--server",
        "remote",
        "--send-env",
        "MCPWIRE_TEST_TOKEN",
      ]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout, "child\n");
      const refused = await run([
        ...getenv("ROLE"),
        "--config",
        remoteConfig,
        "--server",
        "anonymous",
      ]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /401/);
    } finally {
      await stop(gateway);
    }
  });

  it("mcpwire servers lists name, kind and target, env and header names, and where each variable goes, but no values", async () => {
    const listed = await run(["servers", "--config", hostConfig]);
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 5);
    assert.match(
      lines[0]!,
      /^local {3}stdio {2}\S*node\S* \S+cli-env-server\.js {2}\(env: FROM_CONFIG, TOKEN, WITH_DEFAULT\)$/,
    );
    assert.deepEqual(lines.slice(1), [
      "               env TOKEN <- $MCPWIRE_TEST_TOKEN",
      "               env WITH_DEFAULT <- $NOPE_X",
      "remote  http   http://127.0.0.1:9/mcp  (headers: Authorization)",
      "               header Authorization <- $MCPWIRE_TEST_TOKEN, sent to http://127.0.0.1:9/mcp",
    ]);
    assert.doesNotMatch(listed.stdout, new RegExp(SECRET));
    const json = await run(["servers", "--config", hostConfig, "--json"]);
    assert.deepEqual(JSON.parse(json.stdout)[1], {
      name: "remote",
      kind: "http",
      target: "http://127.0.0.1:9/mcp",
      names: ["Authorization"],
      values: [
        {
          into: "header Authorization",
          from: "$MCPWIRE_TEST_TOKEN",
          sentTo: "http://127.0.0.1:9/mcp",
        },
      ],
    });
    assert.doesNotMatch(json.stdout, new RegExp(SECRET));
  });

  it("an unknown server name is a usage error listing the known ones", async () => {
    const result = await run(["discover", "--config", hostConfig, "--server", "lcoal"]);
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      `mcpwire: no server "lcoal" in ${hostConfig}; it has: local, remote\n`,
    );
  });

  it("a malformed file is named with what is wrong", async () => {
    const broken = writeConfig("broken.json", '{"mcpServers": {');
    const notJson = await run(["servers", "--config", broken]);
    assert.equal(notJson.code, 2);
    assert.match(notJson.stderr, new RegExp(`^mcpwire: ${broken}: not valid JSON: `));
    const shape = writeConfig("shape.json", { tools: {} });
    const noServers = await run(["discover", "--config", shape]);
    assert.equal(noServers.code, 2);
    assert.match(noServers.stderr, /shape\.json: expected an object with "mcpServers"/);
    const badArgs = writeConfig("args.json", {
      mcpServers: { x: { command: "node", args: "a b" } },
    });
    const args = await run(["discover", "--config", badArgs, "--server", "x"]);
    assert.equal(args.code, 2);
    assert.equal(
      args.stderr,
      `mcpwire: ${badArgs}: server "x": "args" must be an array of strings\n`,
    );
    const unset = writeConfig("unset.json", {
      mcpServers: { x: { command: "node", env: { K: ref("MCPWIRE_SURELY_UNSET") } } },
    });
    const missing = await run(["discover", "--config", unset, "--server", "x"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /env\.K uses \$\{MCPWIRE_SURELY_UNSET\}, which is not set/);
    const none = await run(["discover", "--server", "x"], join(dir, "work"));
    assert.equal(none.code, 2);
    assert.equal(none.stderr, "mcpwire: cannot read config file .mcp.json (ENOENT)\n");
  });
});
