/**
 * The conformance "everything" server: every tool, resource and prompt the official MCP
 * conformance suite calls, on mcpwire's public API.
 *
 *   npm run --silent example:everything -- --http --port 3000   # http://127.0.0.1:3000/mcp
 *   npm run --silent example:everything -- --stdio
 *   npm run --silent example:everything -- --http --port 3000 --auth-issuer https://as.example
 *   npm run --silent example:everything -- --http --port 3001 --redis redis://127.0.0.1:6379
 *
 * With --auth-issuer the HTTP endpoint is an OAuth protected resource: its metadata (naming
 * the issuer) is at /.well-known/oauth-protected-resource/mcp, and every request needs a JWT
 * access token from that issuer (checked against its JWKS) whose audience is the resource URL:
 * --auth-resource, default http://localhost:<port>/mcp. --auth-scopes 'a b' makes every request
 * need those scopes (a token without them gets a 403 insufficient_scope challenge) and names
 * them in the 401 challenge and the metadata, so clients ask for them; without it the server
 * advertises no scope and warns on stderr.
 *
 * With --redis, every instance started with the same Redis URL (and --redis-prefix, default
 * "mcpwire:") serves as one server behind a load balancer (examples/everything-cluster.ts,
 * docs/cluster.md).
 *
 * It also serves the skills of examples/skills (the Skills extension, docs/skills.md).
 *
 * With --otel, every request and notification is traced and timed by the OpenTelemetry
 * conventions for MCP (mcpwire/otel), exported over OTLP/HTTP as the standard OTEL_* variables
 * say (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME, ...); the
 * SDK packages are loaded only then, and everything is flushed before the process exits.
 *
 * With --validator cfworker, tool arguments and results are checked by @cfworker/json-schema (no
 * code generation, the engine Workers use) instead of ajv: how the conformance suite's JSON
 * Schema scenarios run against both engines (test/schema/cfworker-conformance.test.ts).
 *
 * Over HTTP one endpoint serves both eras: 2026-07-28 requests (per-request `_meta`) and
 * 2025-era `initialize` sessions. The HTTP port is printed on stdout once listening
 * ("listening on <url>"), so a script that passes `--port 0` can read it.
 */
import { ajvValidator } from "../src/schema/ajv.js";
import { cfworkerValidator } from "../src/schema/cfworker.js";
import type { SchemaValidator } from "../src/schema/validator.js";
import type { McpServer } from "../src/server/index.js";
import { serveHttp } from "../src/transports/http/node-adapter.js";
import type { ResourceGuard } from "../src/transports/http/resource-guard.js";
import { serveStdio } from "../src/transports/stdio/serve.js";
import { createEverythingServer } from "./everything-server/create.js";

interface Args {
  mode: "http" | "stdio";
  port: number;
  host: string;
  authIssuer: string | undefined;
  authResource: string | undefined;
  authScopes: string[];
  redis: string | undefined;
  redisPrefix: string | undefined;
  validator: SchemaValidator | undefined;
  otel: boolean;
}

const USAGE =
  "usage: everything-server (--stdio | --http [--port N] [--host H] [--auth-issuer URL [--auth-resource URL] [--auth-scopes 'a b']]] [--redis URL [--redis-prefix P]] [--validator ajv|cfworker] [--otel])\n";

function parseArgs(argv: string[]): Args {
  const args: Args = {
    mode: "stdio",
    port: 3000,
    host: "127.0.0.1",
    authIssuer: undefined,
    authResource: undefined,
    authScopes: [],
    redis: undefined,
    redisPrefix: undefined,
    validator: undefined,
    otel: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--http") args.mode = "http";
    else if (arg === "--stdio") args.mode = "stdio";
    else if (arg === "--port") args.port = Number(argv[++i]);
    else if (arg === "--host") args.host = String(argv[++i]);
    else if (arg === "--auth-issuer") args.authIssuer = urlArgument(arg, argv[++i]);
    else if (arg === "--auth-resource") args.authResource = urlArgument(arg, argv[++i]);
    else if (arg === "--redis") args.redis = urlArgument(arg, argv[++i]);
    else if (arg === "--redis-prefix") args.redisPrefix = String(argv[++i]);
    else if (arg === "--validator") args.validator = validatorArgument(argv[++i]);
    else if (arg === "--otel") args.otel = true;
    else if (arg === "--auth-scopes")
      args.authScopes = String(argv[++i]).split(" ").filter(Boolean);
    else {
      process.stderr.write(`unknown argument ${arg}\n${USAGE}`);
      process.exit(2);
    }
  }
  if (
    (args.authResource !== undefined || args.authScopes.length > 0) &&
    args.authIssuer === undefined
  ) {
    process.stderr.write(`--auth-resource and --auth-scopes need --auth-issuer\n${USAGE}`);
    process.exit(2);
  }
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
    process.stderr.write("--port needs a number from 0 to 65535\n");
    process.exit(2);
  }
  return args;
}

/** An absolute URL, kept exactly as given (an issuer identifier is compared as a string). */
function urlArgument(flag: string, value: string | undefined): string {
  if (value !== undefined && URL.canParse(value)) return value;
  process.stderr.write(`${flag} needs an absolute URL\n${USAGE}`);
  process.exit(2);
}

/**
 * The protected-resource guard for --auth-issuer. mcpwire/auth (and with it jose) is loaded
 * only here. The resource defaults to http://localhost:<port>/mcp, the port being the one
 * actually bound (for --port 0).
 */
async function authGuard(args: Args): Promise<ResourceGuard | undefined> {
  if (args.authIssuer === undefined) return undefined;
  const { protectResource } = await import("../src/auth/index.js");
  let guard: ResourceGuard;
  try {
    guard = protectResource({
      issuer: args.authIssuer,
      ...(args.authResource !== undefined ? { resource: args.authResource } : {}),
      // Scopes every request needs: a token without them gets a 403 insufficient_scope.
      ...(args.authScopes.length > 0 ? { requiredScopes: args.authScopes } : {}),
      resourceName: "mcpwire everything server",
    });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
  // Spec-following clients ask for the scopes a server names, and for none when it names none,
  // which many authorization servers refuse.
  if (args.authScopes.length === 0) {
    process.stderr.write(
      "warning: --auth-issuer without --auth-scopes advertises no scope: clients will ask for none, and many authorization servers refuse that (access_denied)\n",
    );
  }
  const useEndpointUrl = guard.useEndpointUrl?.bind(guard);
  guard.useEndpointUrl = (url) => {
    const bound = new URL(url);
    useEndpointUrl?.(`http://localhost:${bound.port}${bound.pathname}`);
  };
  return guard;
}

/** clusterOptions (loaded only with --redis: node-redis is optional), or exit 2 with why. */
async function joinCluster(url: string, prefix: string | undefined) {
  const { clusterOptions } = await import("./everything-cluster.js");
  try {
    return await clusterOptions(url, prefix);
  } catch (error) {
    process.stderr.write(
      `--redis ${url}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(2);
  }
}

function validatorArgument(name: string | undefined): SchemaValidator {
  if (name === "ajv") return ajvValidator();
  if (name === "cfworker") return cfworkerValidator();
  process.stderr.write(`--validator takes ajv or cfworker, not ${name}\n${USAGE}`);
  process.exit(2);
}

/**
 * --otel: the SDK from the OTEL_* variables and the server middleware (both loaded only here);
 * returns what flushes everything before exit.
 */
async function startTelemetry(server: McpServer): Promise<(() => Promise<void>) | undefined> {
  if (!args.otel) return undefined;
  const { startCommandTelemetry } = await import("../src/otel/command-trace.js");
  const { otelServerMiddleware } = await import("../src/otel/middleware.js");
  try {
    const telemetry = await startCommandTelemetry({ serviceName: "mcpwire-everything-server" });
    server.use(otelServerMiddleware());
    return () => telemetry.finish(0);
  } catch (error) {
    process.stderr.write(`--otel: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
}

const args = parseArgs(process.argv.slice(2));
const cluster =
  args.redis === undefined ? undefined : await joinCluster(args.redis, args.redisPrefix);
// --otel: each task's background run a trace of its own, linked to the call that made it.
const runTask = args.otel ? (await import("../src/otel/task-runs.js")).otelTaskRuns() : undefined;
const server = await createEverythingServer({
  ...cluster?.server,
  ...(runTask ? { tasks: { ...cluster?.server.tasks, runTask } } : {}),
  ...(args.validator ? { validator: args.validator } : {}),
});
const flushTelemetry = await startTelemetry(server);
if (args.mode === "stdio") {
  await serveStdio(server);
  await flushTelemetry?.();
} else {
  const auth = await authGuard(args);
  const served = await serveHttp(server, {
    host: args.host,
    port: args.port,
    ...(auth ? { auth } : {}),
    ...cluster?.http,
    legacy: {
      // SSE polling (SEP-1699): test_reconnection's stream closes after the priming event and
      // the client resumes it with GET + Last-Event-ID, half a second later.
      retryMs: 500,
      disconnectAfterPriming: (method, params) =>
        method === "tools/call" && (params as { name?: unknown }).name === "test_reconnection",
      // A cluster's legacy sessions live in shared stores.
      ...cluster?.legacy,
    },
  });
  process.stdout.write(`listening on ${served.url}\n`);
  if (args.authIssuer !== undefined) {
    // The audience a token must name: what a client (or `mcpwire auth login`) must ask for.
    const resource = args.authResource ?? `http://localhost:${new URL(served.url).port}/mcp`;
    process.stdout.write(`tokens from ${args.authIssuer} must be for ${resource}\n`);
  }
  const stop = () => {
    void served
      .close()
      .then(() => cluster?.close())
      .then(() => flushTelemetry?.())
      .then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
