import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { describe, it } from "node:test";
import { type CliRun, runCli, STDIO_SERVER } from "./run-cli.js";

const SILENT_SERVER = new URL("../fixtures/cli-silent-server.js", import.meta.url).pathname;
const START = new URL("../../src/cli/start-demo.js", import.meta.url).pathname;

/** A port with something listening on it, for the "busy port" cases. */
async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** A port nothing listens on (taken, then given back). */
async function freePort(): Promise<number> {
  const { server, port } = await holdPort();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("connecting fails with an explanation, not a timeout", () => {
  it("a stdio server writing non-JSON to stdout is named at once, with the bytes made printable", async () => {
    const banner =
      'console.log("Server ready \\x1b[31mon port 3000"); console.error("booting"); setInterval(() => {}, 1000)';
    // --timeout 30000: without the diagnosis this would wait out the handshake instead.
    const run = await runCli([
      "discover",
      "--timeout",
      "30000",
      "--",
      process.execPath,
      "-e",
      banner,
    ]);
    assert.equal(run.code, 1);
    const lines = run.stderr.trimEnd().split("\n");
    assert.equal(
      lines[0],
      'mcpwire: the server wrote something that is not JSON-RPC to stdout: "Server ready \\x1b[31mon port 3000"; ' +
        "a stdio server may write only MCP messages there (its logs belong on stderr)",
    );
    assert.deepEqual(lines.slice(1), ["its stderr ended with:", "  booting"]);
    assert.equal(run.stderr.includes("\u001b"), false);
  });

  it("a silent stdio server times out with its stderr tail and a hint", async () => {
    const run = await runCli([
      "discover",
      "--timeout",
      "1000",
      "--",
      process.execPath,
      SILENT_SERVER,
    ]);
    assert.equal(run.code, 1);
    const lines = run.stderr.trimEnd().split("\n");
    assert.equal(
      lines[0],
      `mcpwire: ${process.execPath} ${SILENT_SERVER} did not finish the MCP handshake within 1 s`,
    );
    assert.equal(lines[1], "its stderr ended with:");
    assert.match(lines[2]!, /^ {2}silent server pid \d+$/);
    assert.match(
      lines[3]!,
      /^hint: is it an MCP server, and does it answer on stdout\? --verbose shows the wire; --timeout <ms> waits longer/,
    );
  });

  it("says nothing is listening at a URL or tcp:// address that refuses connections", async () => {
    const port = await freePort();
    const http = await runCli(["discover", `http://127.0.0.1:${port}/mcp`]);
    assert.equal(http.code, 1);
    assert.equal(
      http.stderr,
      `mcpwire: nothing is listening at http://127.0.0.1:${port}/mcp (connection refused): is the server running, on that port?\n`,
    );
    const tcp = await runCli(["call", `tcp://127.0.0.1:${port}`, "echo"]);
    assert.equal(tcp.code, 1);
    assert.match(
      tcp.stderr,
      new RegExp(
        `^mcpwire: nothing is listening at tcp://127\\.0\\.0\\.1:${port} \\(connection refused\\)`,
      ),
    );
  });

  it("gateway --listen on a busy port is one line naming --listen, and the gateway exits", async () => {
    const { server, port } = await holdPort();
    try {
      const run = await runCli([
        "gateway",
        "--listen",
        `127.0.0.1:${port}`,
        "--",
        process.execPath,
        STDIO_SERVER,
      ]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        `mcpwire: --listen 127.0.0.1:${port}: the port is already in use; pick another port (or 0 for any free one)\n`,
      );
    } finally {
      server.close();
    }
  });

  it("npm start on a busy PORT is one line naming PORT", async () => {
    const { server, port } = await holdPort();
    try {
      const child = spawn(process.execPath, [START], {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, PORT: String(port) },
      });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (text: string) => {
        stderr += text;
      });
      child.stdout.resume();
      const run = await new Promise<CliRun>((resolve) => {
        child.on("close", (code, signal) => resolve({ code, signal, stdout: "", stderr }));
      });
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        `npm start: port ${port} is already in use; set PORT to another one (PORT=3001 npm start, or 0 for any)\n`,
      );
    } finally {
      server.close();
    }
  });
});
