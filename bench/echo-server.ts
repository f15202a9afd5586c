/**
 * mcpwire's echo server for the benchmarks, runnable on its own so anyone can drive it:
 *
 *   npm run --silent bench:server -- --stdio [--middleware]
 *   npm run --silent bench:server -- --http --port 8080 [--sse] [--jwt-issuer URL]
 *       [--redis URL [--redis-prefix P]] [--otel api|memory|memory-no-context] [--middleware]
 *   bun dist/bench/echo-server.js --http --native     # the web handler on Bun.serve
 *
 * Tool `echo` (echo-tool.ts) takes `{ text: string }` and returns its text as one text block.
 * Every check stays on (envelope checks, header and Origin validation, argument validation):
 * the benchmarks measure the configuration people ship. In HTTP mode the first stdout line is
 * `listening <url>` (port 0 picks a free port). With --redis its legacy sessions are shared with
 * every echo server given the same Redis and prefix (one instance of a cluster). --middleware adds
 * one no-op middleware (server.use), to price the seam.
 */
import { type McpServer, serveStdio } from "mcpwire/server";
import { createEchoServer } from "./echo-tool.js";

function flagValue(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
}

async function main(argv: string[]): Promise<void> {
  const server = createEchoServer({ middleware: argv.includes("--middleware") });
  if (argv.includes("--http")) {
    // Loaded only here, as a stdio-only server (importing "mcpwire/server") never loads HTTP.
    const { serveHttp } = await import("mcpwire/transports/http");
    const { installGcHook } = await import("./peers/gc-hook.js");
    installGcHook();
    // --jwt-issuer: a protected resource taking that issuer's JWT access tokens (audience: the
    // URL served). mcpwire/auth is loaded only then.
    const issuer = flagValue(argv, "--jwt-issuer");
    const auth = issuer ? (await import("mcpwire/auth")).protectResource({ issuer }) : undefined;
    // --redis: legacy sessions over shared state; `redis` and mcpwire/redis are loaded only then.
    if (argv.includes("--native")) return serveOnBun(server, argv);
    // --otel api|memory: traced by mcpwire/otel (OpenTelemetry is loaded only then).
    const otel = flagValue(argv, "--otel");
    if (otel !== undefined) await (await import("./peers/otel-setup.js")).traceServer(server, otel);
    const redisUrl = flagValue(argv, "--redis");
    let cluster: import("mcpwire/transports/http").LegacyCluster | undefined;
    if (redisUrl) {
      const { createClient } = await import("redis");
      const { redisLegacyCluster } = await import("mcpwire/redis");
      const client = createClient({ url: redisUrl, disableOfflineQueue: true });
      client.on("error", (error: Error) => process.stderr.write(`redis: ${error.message}\n`));
      await client.connect();
      cluster = redisLegacyCluster(client, { prefix: flagValue(argv, "--redis-prefix") });
    }
    const served = await serveHttp(server, {
      port: Number(flagValue(argv, "--port") ?? 0),
      responseMode: argv.includes("--sse") ? "sse" : "json",
      ...(auth ? { auth } : {}),
      ...(cluster ? { legacy: { cluster } } : {}),
    });
    process.stdout.write(`listening ${served.url}\n`);
    const stop = () => void served.close().then(() => process.exit(0));
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    return;
  }
  if (!argv.includes("--stdio")) {
    process.stderr.write(
      "usage: echo-server --stdio | --http [--port N] [--sse] [--jwt-issuer URL] [--redis URL [--redis-prefix P]] [--native] [--otel api|memory|memory-no-context] (both: [--middleware])\n",
    );
    process.exit(2);
  }
  await serveStdio(server);
}

/** --native: createHttpHandler on Bun's own server, as a Bun app mounts it. */
async function serveOnBun(server: McpServer, argv: string[]): Promise<void> {
  const { createHttpHandler } = await import("mcpwire/transports/http");
  const { serveNative } = await import("../test/helpers/native-serve.js");
  const handler = createHttpHandler(server, {
    responseMode: argv.includes("--sse") ? "sse" : "json",
  });
  const served = await serveNative(
    (request) => handler.handle(request),
    Number(flagValue(argv, "--port") ?? 0),
  );
  process.stdout.write(`listening ${served.url}\n`);
  const stop = () =>
    void Promise.all([handler.close(), served.close()]).then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

await main(process.argv.slice(2));
