/**
 * visibility(): hidden tools and prompts are absent from lists and refused exactly as unknown
 * ones, before their handlers run; rules for everyone, per granted scope (over HTTP with a real
 * principal) and per caller; both eras.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { globSet } from "../../src/middleware/glob.js";
import { type VisibilityOptions, visibility } from "../../src/middleware/index.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { serveHttp } from "../../src/transports/http/node-adapter.js";
import { memoryClient } from "./memory-client.js";

const ERAS = ["modern", "legacy"] as const;

function toolServer(options: VisibilityOptions, ran: string[]): McpServer {
  const server = new McpServer({ serverInfo: { name: "vis", version: "1" }, onError: () => {} });
  for (const name of ["files_read", "files_write", "admin_reset", "echo"]) {
    server.tool({ name }, () => {
      ran.push(name);
      return name;
    });
  }
  for (const name of ["greeting", "admin_prompt"]) {
    server.prompt(
      { name, arguments: [{ name: "who" }] },
      () => ({ messages: [{ role: "user", content: { type: "text", text: name } }] }),
      { complete: { who: () => ["ada", "alan"] } },
    );
  }
  server.use(visibility(options));
  return server;
}

async function refusal(promise: Promise<unknown>): Promise<JsonRpcError> {
  const error = await promise.then(
    () => assert.fail("expected an error reply"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof JsonRpcError, `expected a JsonRpcError, got ${String(error)}`);
  return error;
}

async function toolNames(client: McpClient): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

describe("name globs", () => {
  it("match whole names, * any run, ? one character, nothing else special", () => {
    const match = globSet(["files_*", "a?c", "x.y", "[z]"]);
    assert.ok(match("files_") && match("files_read") && match("abc") && match("a😀c"));
    assert.ok(match("x.y") && match("[z]"));
    assert.ok(
      !match("my_files_read") && !match("ac") && !match("abbc") && !match("xzy") && !match("z"),
    );
    assert.throws(() => globSet([""]), /non-empty/);
  });

  it("take glob x name steps on a hostile name, not exponential backtracking", () => {
    const match = globSet(["*a*a*a*a*a*a*a*b"]);
    // A regular expression built the naive way backtracks for minutes on this.
    assert.equal(match("a".repeat(20_000)), false);
  });
});

for (const era of ERAS) {
  describe(`visibility, era ${era}`, () => {
    it("allow and deny for everyone: lists filtered, calls refused as unknown, handlers never run", async () => {
      const ran: string[] = [];
      const client = await memoryClient(
        toolServer({ allow: ["files_*", "echo"], deny: ["*_write"] }, ran),
        era,
      );
      assert.deepEqual(await toolNames(client), ["echo", "files_read"]);
      for (const hidden of ["files_write", "admin_reset"]) {
        const error = await refusal(client.callTool(hidden, {}));
        const unknown = await refusal(client.callTool("no_such_tool", {}));
        assert.equal(error.code, unknown.code);
        assert.equal(error.message, `Unknown tool: ${hidden}`);
        assert.deepEqual(error.data, { name: hidden });
      }
      await client.callTool("files_read", {});
      assert.deepEqual(ran, ["files_read"]);
      await client.close();
    });

    it("prompts when asked: list, get and completion", async () => {
      const client = await memoryClient(
        toolServer({ deny: ["admin_*"], features: ["tools", "prompts"] }, []),
        era,
      );
      const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
      assert.deepEqual(prompts, ["greeting"]);
      assert.equal(
        (await refusal(client.getPrompt("admin_prompt"))).message,
        "Unknown prompt: admin_prompt",
      );
      const completion = await refusal(
        client.complete({ type: "ref/prompt", name: "admin_prompt" }, { name: "who", value: "a" }),
      );
      assert.equal(completion.code, -32602);
      const open = await client.complete(
        { type: "ref/prompt", name: "greeting" },
        { name: "who", value: "a" },
      );
      assert.deepEqual(open.completion.values, ["ada", "alan"]);
      assert.deepEqual(await toolNames(client), ["echo", "files_read", "files_write"]);
      await client.close();
    });

    it("rules per caller, from the request's context", async () => {
      const ran: string[] = [];
      const server = toolServer(
        { rulesFor: (ctx) => (ctx.era === "legacy" ? { deny: ["echo"] } : { allow: ["echo"] }) },
        ran,
      );
      const client = await memoryClient(server, era);
      const expected = era === "legacy" ? ["admin_reset", "files_read", "files_write"] : ["echo"];
      assert.deepEqual(await toolNames(client), expected);
      await client.close();
    });
  });
}

describe("visibility by scope, over HTTP with a principal", () => {
  for (const era of ERAS) {
    it(`shows each caller what its scopes allow (${era})`, async () => {
      const ran: string[] = [];
      const server = toolServer(
        { scopes: { "files:read": ["files_read", "echo"], admin: ["*"] } },
        ran,
      );
      // The test's own authentication: the scopes come from a header.
      const served = await serveHttp(server, {
        authenticate: (request) => ({
          scopes: (request.headers.get("x-scopes") ?? "").split(" ").filter(Boolean),
        }),
      });
      const clientWith = async (scopes: string) => {
        const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era });
        await client.connect(
          new HttpClientTransport(served.url, {
            headers: { "x-scopes": scopes },
            flavourCache: new Map(),
          }),
        );
        return client;
      };
      try {
        const reader = await clientWith("files:read other");
        assert.deepEqual(await toolNames(reader), ["echo", "files_read"]);
        assert.equal((await refusal(reader.callTool("admin_reset", {}))).code, -32602);
        if (era === "modern") {
          // The list differs by caller: it must not sit in a shared cache.
          const raw = (await reader.request("tools/list", {})) as { cacheScope?: string };
          assert.equal(raw.cacheScope, "private");
        }
        const admin = await clientWith("admin");
        assert.equal((await toolNames(admin)).length, 4);
        await admin.callTool("admin_reset", {});
        const nobody = await clientWith("");
        assert.deepEqual(await toolNames(nobody), []);
        assert.deepEqual(ran, ["admin_reset"]);
        await Promise.all([reader.close(), admin.close(), nobody.close()]);
      } finally {
        await served.close();
      }
    });
  }
});

describe("visibility options", () => {
  it("refuses an unknown feature and a bad glob at construction", () => {
    assert.throws(() => visibility({ features: ["resources" as "tools"] }), /unknown feature/);
    assert.throws(() => visibility({ deny: [""] }), /non-empty/);
  });
});
