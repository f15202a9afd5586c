/**
 * A config file entry's variables, in process: only the entry used is expanded; VS Code's
 * `${workspaceFolder}` and `${input:id}`; a missing `cwd` named as such; and a remote entry's URL
 * and headers carry a variable of our environment only with consent (`--send-env NAME`), since a
 * hostile `./.mcp.json` could otherwise send any secret of ours to a server of its choosing.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { configTarget, resolveConfigTarget } from "../../src/cli/connect/config-target.js";
import { UsageError } from "../../src/cli/core/errors.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "mcpwire-config-vars-")));
const SECRET = "AKIA-secret-value-never-shown";
const ENV = { PATH: "/usr/bin", AWS_SECRET_ACCESS_KEY: SECRET, HOST_PART: "example.com" };

/** `${inner}` as the config files write it. */
const ref = (inner: string) => ["$", "{", inner, "}"].join("");

let files = 0;
function writeConfig(value: unknown, folder = dir): string {
  const path = join(folder, `config-${++files}.json`);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

const usageError = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof UsageError, String(error));
  assert.match(error.message, pattern);
  assert.doesNotMatch(error.message, new RegExp(SECRET));
  return true;
};

describe("config file variables", () => {
  it("expands only the entry used: an unset variable elsewhere breaks nothing", () => {
    const config = writeConfig({
      mcpServers: {
        broken: { command: "node", env: { K: ref("MCPWIRE_SURELY_UNSET") } },
        good: { command: "node", args: ["server.js"], env: { A: ref("HOST_PART") } },
      },
    });
    const target = configTarget({ config, server: "good" }, ENV, true);
    assert.deepEqual(target, {
      kind: "stdio",
      command: "node",
      args: ["server.js"],
      env: { A: "example.com" },
      cwd: undefined,
    });
    assert.throws(
      () => configTarget({ config, server: "broken" }, ENV, true),
      usageError(/server "broken": env\.K uses \$\{MCPWIRE_SURELY_UNSET\}, which is not set/),
    );
  });

  it("workspaceFolder is the file's folder, or the one above .vscode", () => {
    const entry = { command: "node", args: [`${ref("workspaceFolder")}/server.js`] };
    const plain = writeConfig({ mcpServers: { s: entry } });
    assert.deepEqual((configTarget({ config: plain }, ENV, true) as { args: string[] }).args, [
      `${dir}/server.js`,
    ]);
    const project = join(dir, "project");
    mkdirSync(join(project, ".vscode"), { recursive: true });
    const vscode = writeConfig({ servers: { s: entry } }, join(project, ".vscode"));
    assert.deepEqual((configTarget({ config: vscode }, ENV, true) as { args: string[] }).args, [
      `${project}/server.js`,
    ]);
  });

  it("input:id comes from --input or MCPWIRE_INPUT_<ID>; otherwise the error says how to give it", async () => {
    const config = writeConfig({
      inputs: [
        { type: "promptString", id: "api-key", description: "Docs API key", password: true },
      ],
      servers: { s: { command: "node", env: { KEY: ref("input:api-key") } } },
    });
    const fromFlag = configTarget({ config, input: ["api-key=from-flag"] }, ENV, true);
    assert.deepEqual((fromFlag as { env: object }).env, { KEY: "from-flag" });
    const fromEnv = configTarget({ config }, { ...ENV, MCPWIRE_INPUT_API_KEY: "from-env" }, true);
    assert.deepEqual((fromEnv as { env: object }).env, { KEY: "from-env" });
    const expected =
      /server "s" uses \$\{input:api-key\} \(Docs API key\): give it with --input api-key=VALUE or MCPWIRE_INPUT_API_KEY=VALUE in the environment, or run on a terminal to be asked$/;
    assert.throws(() => configTarget({ config }, ENV, true), usageError(expected));
    // The gateway has no --input and never asks: the environment it is.
    assert.throws(
      () => configTarget({ config }, ENV),
      usageError(/\(Docs API key\): give it with MCPWIRE_INPUT_API_KEY=VALUE in the environment$/),
    );
    // Not on a terminal, the asking variant fails the same way instead of waiting for stdin.
    await assert.rejects(resolveConfigTarget({ config }, ENV, false), usageError(expected));
  });

  it("a remote entry sends a variable of ours only with --send-env; the error names where it would go", () => {
    const config = writeConfig({
      mcpServers: {
        docs: {
          url: `https://${ref("HOST_PART")}/mcp`,
          headers: { "X-Api-Key": ref("AWS_SECRET_ACCESS_KEY"), "X-Plain": "fixed" },
        },
      },
    });
    assert.throws(
      () => configTarget({ config, server: "docs" }, ENV, true),
      usageError(
        /server "docs" would send \$HOST_PART \(the URL\), \$AWS_SECRET_ACCESS_KEY \(header X-Api-Key\) from your environment to https:\/\/\$\{HOST_PART\}\/mcp: allow it with --send-env HOST_PART --send-env AWS_SECRET_ACCESS_KEY, or run on a terminal to be asked$/,
      ),
    );
    // Consent for one is not consent for the other.
    assert.throws(
      () => configTarget({ config, server: "docs", "send-env": ["HOST_PART"] }, ENV, true),
      usageError(/would send \$AWS_SECRET_ACCESS_KEY \(header X-Api-Key\)/),
    );
    const allowed = configTarget(
      { config, server: "docs", "send-env": ["HOST_PART", "AWS_SECRET_ACCESS_KEY"] },
      ENV,
      true,
    );
    assert.equal(allowed.kind, "http");
    assert.equal((allowed as { url: URL }).url.href, "https://example.com/mcp");
    assert.deepEqual((allowed as { headers: object }).headers, {
      "X-Api-Key": SECRET,
      "X-Plain": "fixed",
    });
  });

  it("an unset variable with a default, and a typed input, need no consent in a remote entry", () => {
    const config = writeConfig({
      servers: {
        r: {
          url: `http://127.0.0.1:9/${ref("MCPWIRE_UNSET_PATH:-mcp")}`,
          headers: { Authorization: `Bearer ${ref("input:token")}` },
        },
      },
    });
    const target = configTarget({ config, input: ["token=typed"] }, ENV, true);
    assert.equal((target as { url: URL }).url.href, "http://127.0.0.1:9/mcp");
    assert.deepEqual((target as { headers: object }).headers, { Authorization: "Bearer typed" });
  });

  it("a stdio entry's cwd that does not exist is named as such", () => {
    writeFileSync(join(dir, "a-file"), "");
    const missing = writeConfig({ mcpServers: { s: { command: "node", cwd: "no-such-dir" } } });
    assert.throws(
      () => configTarget({ config: missing }, ENV, true),
      usageError(/server "s": its "cwd" \S+\/no-such-dir does not exist$/),
    );
    const file = writeConfig({ mcpServers: { s: { command: "node", cwd: "a-file" } } });
    assert.throws(
      () => configTarget({ config: file }, ENV, true),
      usageError(/server "s": its "cwd" \S+\/a-file is not a directory$/),
    );
  });
});
