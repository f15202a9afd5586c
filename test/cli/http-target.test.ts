import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { LEGACY_VERSIONS } from "../../src/protocol/versions.js";
import {
  EVERYTHING_SERVER,
  listeningAddress,
  type Running,
  startProcess,
  stop,
} from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

describe("mcpwire verbs against the everything server over Streamable HTTP", () => {
  let server: Running;
  let url: string;

  before(async () => {
    server = startProcess(process.execPath, [EVERYTHING_SERVER, "--http", "--port", "0"]);
    url = await listeningAddress(server, "stdout");
  });
  after(() => stop(server));

  it("discover detects the modern era, and --era legacy gets a legacy session", async () => {
    const modern = JSON.parse((await runInProcess(["discover", url, "--json"])).stdout);
    assert.equal(modern.era, "modern");
    assert.deepEqual(modern.supportedVersions, ["2026-07-28", ...LEGACY_VERSIONS]);
    assert.equal(modern.serverInfo.name, "mcpwire-everything-server");
    assert.ok(modern.tools.some((tool: { name: string }) => tool.name === "test_simple_text"));
    assert.ok(modern.resources.some((r: { uri: string }) => r.uri === "test://static-text"));
    assert.ok(modern.prompts.some((p: { name: string }) => p.name === "test_simple_prompt"));
    const legacy = await runInProcess(["discover", url, "--era", "legacy"]);
    assert.equal(legacy.code, 0, legacy.stderr);
    assert.match(legacy.stdout, /^era +legacy \(protocol 2025-11-25/m);
  });

  it("call, read and prompt print readable results", async () => {
    const call = await runInProcess(["call", url, "test_simple_text"]);
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /\S/);
    const image = await runInProcess(["call", url, "test_image_content"]);
    assert.match(image.stdout, /^\[image image\/png, \d+ bytes\]$/m);
    const read = await runInProcess(["read", url, "test://static-text", "--era", "legacy"]);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /\S/);
    const prompt = await runInProcess([
      "prompt",
      url,
      "test_prompt_with_arguments",
      '{"arg1":"a","arg2":"b"}',
    ]);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.match(prompt.stdout, /^user: /m);
  });

  it("progress arrives as lines on stderr; --header reaches the server", async () => {
    const run = await runInProcess([
      "call",
      url,
      "test_tool_with_progress",
      "--header",
      "X-Trace: cli-test",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /^progress 50\/100/m);
  });

  it("isError exits 1", async () => {
    const run = await runInProcess(["call", url, "test_error_handling", "--json"]);
    assert.equal(run.code, 1);
    assert.equal(JSON.parse(run.stdout).isError, true);
  });

  it("an input request the command cannot answer is a clear error, in both eras", async () => {
    for (const era of ["modern", "legacy"]) {
      const run = await runInProcess([
        "call",
        url,
        "test_elicitation",
        '{"message":"Who are you?"}',
        "--era",
        era,
      ]);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(
        run.stderr,
        /^mcpwire: .*the server asked for user input \(elicitation\/create\): "Who are you\?", and mcpwire cannot answer it \(not interactive\); answer with --elicit <json\|file> or --decline\n$/,
      );
    }
  });

  it("a raw request gets the era's _meta and prints JSON", async () => {
    const run = await runInProcess(["raw", url, "tools/list"]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(Array.isArray(JSON.parse(run.stdout).tools));
  });
});
