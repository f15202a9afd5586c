/**
 * The gateway's limits: `--rate-limit N/WINDOW` (tools/call per caller, on one server and on a
 * whole config file's /mcp and /servers/<name>/mcp together; with `--redis` counted in Redis and
 * shared by two gateway processes) and `--max-result-bytes N` (refused, or cut with
 * `--truncate-results`); malformed values are usage errors.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { freePort } from "../helpers/free-port.js";
import { sharedRedis } from "../helpers/redis.js";
import { connectClient, OUR_EVERYTHING, startConfigGateway, startGateway } from "./gateway-run.js";
import { type Running, stop } from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

const RATE_LIMITED = -31429;

const dir = mkdtempSync(join(tmpdir(), "mcpwire-gw-limits-"));
after(() => rmSync(dir, { recursive: true, force: true }));
/** Every gateway the tests start, stopped at the end. */
const running: Running[] = [];
after(() => Promise.all(running.map((gateway) => stop(gateway))));

/** `gateway --config` over two entries, a and b, both our everything example. */
function startTwoServers(flags: string[]) {
  const config = join(dir, "two.json");
  const entry = { command: process.execPath, args: OUR_EVERYTHING };
  writeFileSync(config, JSON.stringify({ mcpServers: { a: entry, b: entry } }));
  return startConfigGateway(config, flags);
}

/** The call's refusal, which must be RATE_LIMITED with a wait within the window. */
async function rateLimited(call: Promise<unknown>, windowMs: number): Promise<void> {
  const refused = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(refused instanceof JsonRpcError, `expected a refusal, got ${String(refused)}`);
  assert.equal(refused.code, RATE_LIMITED, refused.message);
  const { retryAfterMs } = refused.data as { retryAfterMs: number };
  assert.ok(retryAfterMs > 0 && retryAfterMs <= windowMs, `retryAfterMs ${retryAfterMs}`);
}

/** The one text the greet tool answered. */
async function greet(client: McpClient, tool: string, name: string) {
  const result = await client.callTool(tool, { name });
  return result as { content: Array<{ type: string; text?: string }>; isError?: boolean };
}

describe("gateway --rate-limit", () => {
  it("refuses a caller's third tools/call with -31429 and a retryAfterMs; tools/list is not counted; a legacy session is its own caller", async () => {
    const { gateway, url } = await startGateway(OUR_EVERYTHING, ["--rate-limit", "2/1m"]);
    running.push(gateway);
    const modern = (await connectClient(url, "modern")).client;
    try {
      for (let i = 0; i < 3; i++) assert.ok((await modern.listTools()).tools.length > 0);
      assert.equal((await greet(modern, "greet", "one")).content[0]?.text, "Hello, one!");
      assert.equal((await greet(modern, "greet", "two")).content[0]?.text, "Hello, two!");
      await rateLimited(modern.callTool("greet", { name: "three" }), 60_000);
      assert.ok((await modern.listTools()).tools.length > 0);
      // A legacy session counts on its own (the key is the session, not the address).
      const legacy = (await connectClient(url, "legacy")).client;
      try {
        assert.equal((await greet(legacy, "greet", "a")).content[0]?.text, "Hello, a!");
        assert.equal((await greet(legacy, "greet", "b")).content[0]?.text, "Hello, b!");
        await rateLimited(legacy.callTool("greet", { name: "c" }), 60_000);
      } finally {
        await legacy.close();
      }
    } finally {
      await modern.close();
    }
  });

  it("counts a caller's calls on /mcp and every /servers/<name>/mcp of a config file together", async () => {
    const { gateway, origin } = await startTwoServers(["--rate-limit", "2/1m"]);
    running.push(gateway);
    const all = (await connectClient(`${origin}/mcp`, "modern")).client;
    const b = (await connectClient(`${origin}/servers/b/mcp`, "modern")).client;
    try {
      for (let i = 0; i < 3; i++) assert.ok((await all.listTools()).tools.length > 0);
      assert.equal((await greet(all, "a_greet", "one")).content[0]?.text, "Hello, one!");
      assert.equal((await greet(all, "b_greet", "two")).content[0]?.text, "Hello, two!");
      await rateLimited(all.callTool("a_greet", { name: "three" }), 60_000);
      await rateLimited(b.callTool("greet", { name: "three" }), 60_000);
      assert.ok((await b.listTools()).tools.length > 0);
    } finally {
      await Promise.all([all.close(), b.close()]);
    }
  });

  it("with --redis, two gateway processes share the counts", async () => {
    const redis = await sharedRedis("gateway --rate-limit --redis");
    try {
      const flags = ["--rate-limit", "3/1h", "--redis", redis.url, "--redis-prefix", redis.prefix];
      const [one, two] = await Promise.all([
        startGateway(OUR_EVERYTHING, flags),
        startGateway(OUR_EVERYTHING, flags),
      ]);
      running.push(one.gateway, two.gateway);
      const first = (await connectClient(one.url, "modern")).client;
      const second = (await connectClient(two.url, "modern")).client;
      try {
        assert.equal((await greet(first, "greet", "1")).content[0]?.text, "Hello, 1!");
        assert.equal((await greet(second, "greet", "2")).content[0]?.text, "Hello, 2!");
        assert.equal((await greet(first, "greet", "3")).content[0]?.text, "Hello, 3!");
        await rateLimited(second.callTool("greet", { name: "4" }), 3_600_000);
        await rateLimited(first.callTool("greet", { name: "5" }), 3_600_000);
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
      // The counts are Redis keys under the prefix, expiring with the window (beside the
      // cluster's own: the two gateways are instances of one).
      const keys = (await redis.keys()).filter((key) => key.includes(":ratelimit:"));
      assert.equal(keys.length, 1, keys.join(", "));
      const ttl = await redis.client.pTTL(keys[0]!);
      assert.ok(ttl > 0 && ttl <= 3_600_000, `ttl ${ttl}`);
    } finally {
      await redis.cleanup();
    }
  });
});

describe("gateway --max-result-bytes", () => {
  const big = "x".repeat(5000);
  it("refuses a tool result over the limit as a tool error naming both sizes", async () => {
    const { gateway, url } = await startGateway(OUR_EVERYTHING, ["--max-result-bytes", "1000"]);
    running.push(gateway);
    for (const era of ["modern", "legacy"] as const) {
      const { client } = await connectClient(url, era);
      try {
        assert.equal((await greet(client, "greet", "small")).content[0]?.text, "Hello, small!");
        const refused = await greet(client, "greet", big);
        assert.equal(refused.isError, true);
        assert.equal(refused.content.length, 1);
        assert.match(
          refused.content[0]?.text ?? "",
          /^The tool's result was too large to return: \d{4} bytes, over this server's limit of 1000\.$/,
        );
      } finally {
        await client.close();
      }
    }
  });

  it("with --truncate-results, cuts it to fit with a note, on /mcp and /servers/<name>/mcp", async () => {
    const flags = ["--max-result-bytes", "1000", "--truncate-results"];
    const { gateway, origin } = await startTwoServers(flags);
    running.push(gateway);
    for (const [path, tool] of [
      ["/mcp", "b_greet"],
      ["/servers/a/mcp", "greet"],
    ] as const) {
      const { client } = await connectClient(`${origin}${path}`, "modern");
      try {
        const cut = await greet(client, tool, big);
        assert.equal(cut.isError, undefined);
        assert.equal(cut.content.length, 2);
        const text = cut.content[0]?.text ?? "";
        assert.ok(text.startsWith("Hello, xxx") && text.length < 1000, `${text.length} chars`);
        assert.match(
          cut.content[1]?.text ?? "",
          /^\[truncated: the full result was \d{4} bytes, over this server's limit of 1000\]$/,
        );
        assert.ok(Buffer.byteLength(JSON.stringify(cut.content)) <= 1000);
      } finally {
        await client.close();
      }
    }
  });
});

describe("gateway limits: malformed values", () => {
  /** Each is refused before any server starts: exit 2, one line naming the flag. */
  const cases: Array<[string[], RegExp]> = [
    ...["60", "60/", "/1m", "0/1m", "x/1m", "60/1d", "60/0s", "-1/1m", "60/1.5m", "60/m1"].map(
      (value): [string[], RegExp] => [
        ["--rate-limit", value],
        /^mcpwire: --rate-limit takes <calls>\/<window>.* e\.g\. 60\/1m, not "/,
      ],
    ),
    ...["0", "abc", "1.5", "-5", "319", "1e4"].map((value): [string[], RegExp] => [
      ["--max-result-bytes", value],
      /^mcpwire: --max-result-bytes takes a whole number of bytes, at least 320, e\.g\. 100000, not "/,
    ]),
    [["--truncate-results"], /^mcpwire: --truncate-results goes with --max-result-bytes <n>$/],
    [
      ["--advertise", "http://10.0.0.5:8080"],
      /^mcpwire: --advertise goes with --redis <url> and an HTTP --listen$/,
    ],
    [
      ["--redis", "redis://127.0.0.1:6379", "--listen", "0.0.0.0:0"],
      /^mcpwire: --redis with --listen on 0\.0\.0\.0: give --advertise <url>, where the other gateway instances reach this one$/,
    ],
    [
      ["--redis", "redis://127.0.0.1:6379", "--advertise", "ftp://10.0.0.5"],
      /^mcpwire: --advertise takes an http:\/\/ or https:\/\/ URL$/,
    ],
    [
      ["--rate-limit", "5/s", "--redis", "127.0.0.1:6379"],
      /^mcpwire: --redis takes a redis:\/\/ or rediss:\/\/ URL, e\.g\. redis:\/\/127\.0\.0\.1:6379$/,
    ],
    [
      ["--rate-limit", "5/s", "--redis-prefix", "x:"],
      /^mcpwire: --redis-prefix goes with --redis <url>$/,
    ],
  ];

  it("are usage errors, for one server and for a config file", async () => {
    const config = join(dir, "mcp.json");
    const entry = { command: process.execPath, args: [join(dir, "never-started.js")] };
    writeFileSync(config, JSON.stringify({ mcpServers: { a: entry, b: entry } }));
    for (const [flags, message] of cases) {
      for (const target of [
        ["--", process.execPath, join(dir, "never-started.js")],
        ["--config", config],
      ]) {
        const run = await runInProcess(["gateway", ...flags, ...target]);
        assert.equal(run.code, 2, `${flags.join(" ")}: ${run.stderr}`);
        assert.equal(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
        assert.match(run.stderr.trimEnd(), message, flags.join(" "));
      }
    }
  });

  it("--redis refuses --legacy-sse, whose sessions one instance keeps", async () => {
    const flags = ["--redis", "redis://127.0.0.1:6379", "--legacy-sse"];
    const run = await runInProcess([
      "gateway",
      ...flags,
      "--",
      process.execPath,
      join(dir, "never-started.js"),
    ]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^mcpwire: --legacy-sse keeps its sessions in one gateway instance/);
  });

  it("stops at start, exit 1 and one line, when Redis is not there", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const server = join(dir, "never-started.js");
    const flags = ["--rate-limit", "5/s", "--redis", url];
    const run = await runInProcess(["gateway", ...flags, "--", process.execPath, server]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /^mcpwire: --redis: cannot connect to Redis \(.*ECONNREFUSED.*\)\n$/);
  });

  it("takes the windows it documents", async () => {
    const { parseRateLimit } = await import("../../src/cli/gateway/gateway-limits.js");
    assert.deepEqual(parseRateLimit("60/1m"), { limit: 60, windowMs: 60_000 });
    assert.deepEqual(parseRateLimit("10/s"), { limit: 10, windowMs: 1000 });
    assert.deepEqual(parseRateLimit("1000/1h"), { limit: 1000, windowMs: 3_600_000 });
    assert.deepEqual(parseRateLimit("5/30s"), { limit: 5, windowMs: 30_000 });
    assert.deepEqual(parseRateLimit("2/m"), { limit: 2, windowMs: 60_000 });
  });
});
