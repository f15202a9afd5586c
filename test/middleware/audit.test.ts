/**
 * audit(): one JSON line per request, with its caller, name, duration and outcome (ok, error
 * code, tool error, input-required round, task), never arguments or results unless asked;
 * both eras; the file sink; a peer's name cannot break a line.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import {
  type AuditOptions,
  type AuditRecord,
  audit,
  auditFile,
} from "../../src/middleware/index.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { memoryClient } from "./memory-client.js";

function auditedServer(options: Omit<AuditOptions, "write">, lines: string[]): McpServer {
  const server = new McpServer({
    serverInfo: { name: "audited", version: "1" },
    onError: () => {},
  });
  server.use(audit({ ...options, write: (line) => lines.push(line) }));
  server.tool({ name: "echo", inputSchema: { type: "object" } }, (args) => JSON.stringify(args));
  server.tool({ name: "fails" }, () => ({
    content: [{ type: "text", text: "no" }],
    isError: true,
  }));
  server.tool({ name: "signup" }, async (_args, context) => {
    const answer = await context.elicit({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    return `hello ${(answer.content as JsonObject).name}`;
  });
  return server;
}

const records = (lines: string[]): AuditRecord[] => lines.map((line) => JSON.parse(line));

for (const era of ["modern", "legacy"] as const) {
  describe(`audit, era ${era}`, () => {
    it("records each request's method, name, duration and outcome, and no arguments", async () => {
      const lines: string[] = [];
      const client = await memoryClient(auditedServer({ methods: ["tools/call"] }, lines), era);
      await client.callTool("echo", { password: "hunter2" });
      await client.callTool("fails", {});
      await client.callTool("missing", {}).catch(() => {});
      assert.equal((await client.callTool("signup", {})).content[0]?.type === "text", true);
      await client.close();

      const seen = records(lines);
      const byName = (name: string) => seen.filter((record) => record.name === name);
      assert.equal(byName("echo")[0]?.outcome, "ok");
      assert.equal(byName("fails")[0]?.outcome, "tool_error");
      assert.equal(byName("missing")[0]?.outcome, "error");
      assert.equal(byName("missing")[0]?.code, -32602);
      // Modern: the round that asked, then the one that finished; legacy asks inside one request.
      const signup = byName("signup").map((record) => record.outcome);
      assert.deepEqual(signup, era === "modern" ? ["input_required", "ok"] : ["ok"]);
      for (const record of seen) {
        assert.equal(record.method, "tools/call");
        assert.equal(record.era, era);
        assert.equal(record.transport, "memory");
        assert.ok(typeof record.durationMs === "number" && record.durationMs >= 0);
        assert.ok(!Number.isNaN(Date.parse(record.time)));
        assert.equal(record.arguments, undefined);
        assert.equal(record.result, undefined);
      }
      assert.ok(!lines.join("\n").includes("hunter2"), "arguments reached the audit log");
    });

    it("records arguments and results only when asked", async () => {
      const lines: string[] = [];
      const client = await memoryClient(
        auditedServer({ arguments: true, results: true, methods: ["tools/call"] }, lines),
        era,
      );
      await client.callTool("echo", { a: 1 });
      await client.close();
      const [record] = records(lines);
      assert.ok(record !== undefined);
      assert.deepEqual(record.arguments, { a: 1 });
      assert.deepEqual((record.result as { content: unknown[] }).content, [
        { type: "text", text: '{"a":1}' },
      ]);
    });
  });
}

describe("audit", () => {
  it("names the HTTP caller, keeps a hostile name on one line, and survives a failing writer", async () => {
    const lines: string[] = [];
    const server = auditedServer({}, lines);
    const writeErrors: unknown[] = [];
    server.use(
      audit({
        write: () => {
          throw new Error("disk full");
        },
        onWriteError: (error) => writeErrors.push(error),
      }),
    );
    const served = await serveHttp(server, {
      authenticate: () => ({ subject: "ada@example.com", scopes: [] }),
    });
    const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era: "modern" });
    try {
      await client.connect(new HttpClientTransport(served.url, { flavourCache: new Map() }));
      await client.callTool('evil\n{"forged":true}\u001b[2J', {}).catch(() => {});
      await client.callTool("echo", {});
    } finally {
      await client.close();
      await served.close();
    }
    const calls = records(lines).filter((record) => record.method === "tools/call");
    assert.equal(calls.length, 2);
    assert.ok(lines.every((line) => !line.includes("\n") && !line.includes("\u001b")));
    assert.equal(calls[0]?.name, 'evil\n{"forged":true}\u001b[2J');
    assert.ok(
      calls.every(
        (record) => record.principal === "ada@example.com" && record.transport === "http",
      ),
    );
    assert.ok(writeErrors.length >= 2, "the failing writer was not reported");
  });

  it("appends to a file only its owner can read, flushed on close", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpwire-audit-"));
    try {
      const path = join(dir, "audit.jsonl");
      const file = auditFile(path);
      const server = new McpServer({ serverInfo: { name: "f", version: "1" } });
      server.use(audit({ write: file.write }));
      server.tool({ name: "echo" }, () => "hi");
      const client = await memoryClient(server, "modern");
      for (let i = 0; i < 3; i++) await client.callTool("echo", {});
      await client.close();
      await file.close();
      const written = readFileSync(path, "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      assert.equal(written.filter((record) => record.method === "tools/call").length, 3);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      // A second run appends.
      const again = auditFile(path);
      again.write('{"method":"x"}');
      await again.close();
      assert.equal(readFileSync(path, "utf8").trimEnd().split("\n").length, written.length + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
