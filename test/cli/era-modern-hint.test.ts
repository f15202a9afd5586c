/**
 * `--era modern` against a server that speaks only the legacy protocol (the official
 * server-everything, over stdio and Streamable HTTP): its refusal, then a hint to drop the option
 * (issue 25.D12). The same servers without it work, and a modern server with it gets no hint.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { freePort } from "../helpers/free-port.js";
import { SERVER_EVERYTHING } from "./gateway-run.js";
import {
  type Running,
  runCli,
  STDIO_SERVER,
  startProcess,
  stop,
  whenListening,
} from "./run-cli.js";

const HINT =
  /^hint: the server may speak only the legacy protocol \(initialize\); drop --era modern to let mcpwire detect the era, or use --era legacy$/m;
const [EVERYTHING_JS] = SERVER_EVERYTHING as [string, string];

describe("--era modern against a legacy-only server", () => {
  let http: Running;
  let url: string;
  before(async () => {
    const port = await freePort();
    http = startProcess(process.execPath, [EVERYTHING_JS, "streamableHttp"], {
      env: { PORT: String(port) },
    });
    url = await whenListening(http, "server-everything to listen", () =>
      /listening on port \d+/.test(http.stdout() + http.stderr())
        ? `http://127.0.0.1:${port}/mcp`
        : undefined,
    );
  });
  after(() => stop(http));

  it("over stdio: -32601, then the hint", async () => {
    const run = await runCli([
      "discover",
      "--era",
      "modern",
      "--",
      process.execPath,
      EVERYTHING_JS,
      "stdio",
    ]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^mcpwire: server error -32601: Method not found$/m);
    assert.match(run.stderr, HINT);
  });

  it("over HTTP: the SDK's refusal, then the hint", async () => {
    const run = await runCli(["discover", "--era", "modern", url]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^mcpwire: server error -32000: Bad Request: Server not initialized$/m,
    );
    assert.match(run.stderr, HINT);
  });

  it("without --era the same servers answer; a modern server with it gets no hint", async () => {
    const detected = await runCli(["call", url, "echo", "message=hi"]);
    assert.equal(detected.code, 0, detected.stderr);
    assert.match(detected.stdout, /hi/);
    const modern = await runCli([
      "call",
      "--era",
      "modern",
      "nope",
      "--",
      process.execPath,
      STDIO_SERVER,
    ]);
    assert.equal(modern.code, 1);
    assert.doesNotMatch(modern.stderr, /hint: the server may speak only the legacy protocol/);
  });
});
