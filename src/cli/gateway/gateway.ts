import type { HttpHandlerOptions } from "../../transports/http/handler-options.js";
import { DEFAULT_HEALTH_PATH } from "../../transports/http/health.js";
import { serveHttp } from "../../transports/http/node-adapter.js";
import { isLoopbackHostname } from "../../transports/http/security.js";
import { listenSocket } from "../../transports/socket/server.js";
import {
  formatSocketTarget,
  parseSocketTarget,
  type SocketTarget,
} from "../../transports/socket/target.js";
import { childEnvSettings, ENV_OPTIONS, ENV_USAGE, hasEnvOptions } from "../connect/child-env.js";
import { DEFAULT_CONFIG, findServer, readServerConfig } from "../connect/config-file.js";
import { httpAuthProvider } from "../connect/http-auth.js";
import { AUTH_OPTIONS } from "../connect/http-auth-options.js";
import { logLine } from "../connect/session.js";
import { onStopSignals } from "../connect/stop-signals.js";
import {
  configTarget,
  connectionSettings,
  describeEnvironment,
  parseTarget,
} from "../connect/target.js";
import { type ParsedArgs, parseArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";
import { writeOut } from "../core/terminal.js";
import { bearerCheck, gatewayGuard, gatewayToken } from "./gateway-auth.js";
import { startGatewayChild, type UpstreamSettings } from "./gateway-child.js";
import { type GatewayCluster, joinCluster } from "./gateway-cluster.js";
import {
  GOVERNANCE_OPTIONS,
  GOVERNANCE_USAGE,
  type Governance,
  governance,
} from "./gateway-governance.js";
import { runManyGateway, serverPath } from "./gateway-many.js";
import { connectRedis, redisSettings } from "./gateway-redis.js";
import { startGatewayRemote } from "./gateway-remote.js";
import type { GatewayServer } from "./gateway-server.js";
import { runReverseGateway } from "./gateway-stdio.js";
import { DEFAULT_MAX_URIS_PER_STREAM } from "./gateway-subscriptions.js";

export const GATEWAY_USAGE = `Usage: mcpwire gateway --listen <host:port> [options] -- <command> [args…]
       mcpwire gateway --stdio <url> [--header "Name: value"]… [auth options] [--verbose]

Serves a stdio MCP server as a Streamable HTTP endpoint (http://<host:port>/mcp), dual-era:
modern and legacy HTTP clients alike, whatever era the server speaks. One child serves every
client (requests are multiplexed on it; each subscribed resource is subscribed once on the
child); it is restarted after a crash, and stopped with its whole process tree when the
gateway stops (Ctrl-C, SIGTERM, SIGHUP). Prints "listening on <url>" on
stderr once ready; port 0 picks a free port. What the child asks (elicitation, sampling, roots)
goes to the client whose call it is making, its call held open across a modern client's input
rounds; a roots/list that no call waits on is answered with an empty list. GET /healthz (no
token needed; Host and Origin checked) answers 200 {"status":"ok",pid,era,restarts,uptimeSeconds}
while the child runs and has answered its handshake, 503 {"status":"restarting"|"down",…} else.
A request's _meta reaches the child but for the protocol's own keys (trace context, extension
and vendor keys pass); the child's extensions are offered in both eras, and the tasks extension
is relayed, each task answered only to the client that made it.

Options:
  --listen <host:port>     where to listen (default 127.0.0.1:0); loopback unless you say otherwise;
                           tcp://host:port or unix:/path serve newline-delimited JSON-RPC on a
                           socket instead of HTTP (no token or Host checks: keep it loopback)
  --path <path>            the endpoint path (default /mcp)
  --token <secret>         require "Authorization: Bearer <secret>" (visible in ps: prefer
                           --token-file or MCPWIRE_GATEWAY_TOKEN)
  --token-file <path>      the same, the secret read from a file
  --auth-issuer <url>      be an OAuth protected resource instead: take JWT access tokens from this
                           issuer (checked with its JWKS), serve the metadata naming it
  --auth-resource <url>    the URL clients use, the audience tokens must name (default: the URL
                           listened on; required beyond loopback). With --legacy-sse, /sse and
                           /messages are the resource beside it (…/sse, metadata at
                           /.well-known/oauth-protected-resource/sse) unless this one covers them
  --auth-scopes "<a b>"    scopes every request needs, named in the 401 challenge and the metadata
                           (scopes_supported), so clients ask for them; without it the gateway
                           advertises none and warns (many authorization servers then refuse)
  --cors                   answer browser preflights (CORS) for the allowed origins (by default
                           only the gateway's own origin: give --allowed-origin for your app)
  --legacy-sse             also serve the deprecated HTTP+SSE transport (2024-11-05) for old
                           clients: GET /sse opens the stream, POST /messages?sessionId=…
                           (same token, Host and Origin checks; at most 1000 such sessions)
  --allowed-host <h>       accept this Host header (repeatable; default loopback names only)
  --allowed-origin <o>     accept this Origin (repeatable; default loopback origins only)
  --era modern|legacy|auto the era to speak to the child (default auto)
  --timeout <ms>           how long the child may take to answer a request (default 60000),
                           restarted by its progress, paused while it waits for a client
  --max-uris-per-stream <n>  resource URIs one subscriptions/listen may ask for (default 1000);
                           each costs a subscription on the child
  --verbose                the child's wire and stderr on stderr
  --config <file> --server <name>  the child from an MCP config file instead of -- <command>
  --config <file> [--server a,b]   several servers of the file (every entry, or those named
                           – "a," is a list of one;
                           a url entry with its headers and stored tokens): all at /mcp (names <server>_<name>, resource URIs carrying
                           the server) and each at /servers/<name>/mcp, supervised on its own;
                           GET /healthz reports each (200 "ok" or "degraded" while any is up)
  --separator <s>          between a server's name and a tool's on /mcp and in the globs below
                           (default _; 1-8 of A-Z a-z 0-9 _ - .)
${GOVERNANCE_USAGE}
${ENV_USAGE}

The reverse, --stdio <url>, offers a remote Streamable HTTP server as a local stdio server (for
clients that only launch subprocesses): MCP on our stdin/stdout, relayed message by message to
the URL in whatever era the local client speaks (initialize opens a legacy session, per-request
_meta goes as modern POSTs). --header adds HTTP headers; --verbose shows the relayed messages
on stderr. EOF on stdin ends the session. An OAuth-protected URL works as with every verb:
the tokens of "mcpwire auth login <url>" (refreshed as needed), or --bearer-file <file>
(--bearer, MCPWIRE_BEARER), or --client-id <id> --grant client_credentials (secret from
--client-secret or MCPWIRE_CLIENT_SECRET), with --scope "<scopes>".
`;

export async function runGateway(argv: readonly string[]): Promise<number> {
  const parsed = parseArgs(argv, {
    listen: "value",
    path: "value",
    token: "value",
    "token-file": "value",
    "auth-issuer": "value",
    "auth-resource": "value",
    "auth-scopes": "value",
    cors: "flag",
    "legacy-sse": "flag",
    "allowed-host": "list",
    "allowed-origin": "list",
    era: "value",
    timeout: "value",
    "max-uris-per-stream": "value",
    verbose: "flag",
    help: "flag",
    stdio: "value",
    header: "list",
    config: "value",
    server: "value",
    separator: "value",
    ...GOVERNANCE_OPTIONS,
    ...ENV_OPTIONS,
    ...AUTH_OPTIONS,
  });
  const { options } = parsed;
  if (options.help === true) {
    writeOut(GATEWAY_USAGE);
    return 0;
  }
  if (options.stdio !== undefined) return reverseGateway(parsed);
  if (Object.keys(AUTH_OPTIONS).some((name) => options[name] !== undefined)) {
    throw new UsageError(
      "--bearer, --client-id and the other upstream authorization options are for --stdio <url>",
    );
  }
  const many = severalEntries(parsed);
  const fromConfig = many ? undefined : configuredChild(parsed);
  if (parsed.command === undefined && fromConfig === undefined && !many) {
    throw new UsageError(
      "gateway needs the server's command after -- (or --server <name>): mcpwire gateway --listen 127.0.0.1:8080 -- node server.js",
    );
  }
  if (parsed.positionals.length > 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
  }
  const listenText = (options.listen as string | undefined) ?? "127.0.0.1:0";
  // tcp://host:port or unix:/path: the ndjson socket framing instead of Streamable HTTP.
  const socketAddress = /^(tcp:\/\/|unix:)/i.test(listenText)
    ? socketListen(listenText)
    : undefined;
  const { host, port } = socketAddress
    ? { host: socketAddress.kind === "tcp" ? socketAddress.host : "127.0.0.1", port: 0 }
    : parseListen(listenText);
  if (
    socketAddress &&
    (options.token !== undefined ||
      options["token-file"] !== undefined ||
      options.cors === true ||
      options["legacy-sse"] === true)
  ) {
    throw new UsageError(
      "--token, --token-file, --cors and --legacy-sse are for HTTP: a socket has no headers to check",
    );
  }
  const path = (options.path as string | undefined) ?? "/mcp";
  if (path === DEFAULT_HEALTH_PATH) {
    throw new UsageError(`--path ${path} is the health check's: pick another endpoint path`);
  }
  const era = (options.era as string | undefined) ?? "auto";
  if (era !== "auto" && era !== "modern" && era !== "legacy") {
    throw new UsageError(`--era must be modern, legacy or auto, not ${JSON.stringify(era)}`);
  }
  const timeoutMs = options.timeout === undefined ? undefined : Number(options.timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new UsageError("--timeout must be a positive number of milliseconds");
  }
  const maxUris = options["max-uris-per-stream"];
  const maxUrisPerStream = maxUris === undefined ? DEFAULT_MAX_URIS_PER_STREAM : Number(maxUris);
  if (!(Number.isInteger(maxUrisPerStream) && maxUrisPerStream > 0)) {
    throw new UsageError("--max-uris-per-stream must be a positive whole number");
  }
  const token = gatewayToken(
    options.token as string | undefined,
    options["token-file"] as string | undefined,
  );
  const issuer = options["auth-issuer"] as string | undefined;
  if (issuer !== undefined && token !== undefined) {
    throw new UsageError(
      "--auth-issuer and a gateway token (--token, --token-file, MCPWIRE_GATEWAY_TOKEN) exclude each other",
    );
  }
  const auth = await gatewayGuard(
    {
      issuer,
      resource: options["auth-resource"] as string | undefined,
      scopes: options["auth-scopes"] as string | undefined,
      loopback: isLoopbackHostname(host) || host === "::1",
    },
    logLine,
  );
  // Who may come in, the same for one server or several.
  const access: HttpHandlerOptions = {
    cors: options.cors === true,
    allowedHosts: options["allowed-host"] as string[] | undefined,
    // With CORS on, the loopback default (any port) would let every local web page in: only
    // the gateway's own origin unless the operator names the app's.
    allowedOrigins:
      (options["allowed-origin"] as string[] | undefined) ??
      (options.cors === true ? "same-origin" : undefined),
    ...(auth ? { auth } : { authenticate: token === undefined ? undefined : bearerCheck(token) }),
  };
  const separator = nameSeparator(options.separator as string | undefined);
  if (many && (socketAddress || options.path !== undefined || options["legacy-sse"] === true)) {
    throw new UsageError(
      "with several servers the gateway serves HTTP at /servers/<name>/mcp: --path, --legacy-sse and a socket --listen are for one server (pick it with --server <name>)",
    );
  }
  const redisConfig = redisSettings(options);
  if (redisConfig && options["legacy-sse"] === true) {
    throw new UsageError(
      "--legacy-sse keeps its sessions in one gateway instance: it does not go with --redis",
    );
  }
  const advertised = advertisedUrl(options, host, redisConfig !== undefined, socketAddress);
  const settings: Omit<ServeSettings, "cluster"> = {
    many,
    fromConfig,
    listenText,
    socketAddress,
    host,
    port,
    path,
    era,
    timeoutMs,
    maxUrisPerStream,
    access,
    separator,
    guarded: token !== undefined || auth !== undefined,
  };
  // Redis connected, the audit log opened: closed however the gateway ends.
  const redis = redisConfig && (await connectRedis(redisConfig, logLine));
  let rules: Governance | undefined;
  let cluster: GatewayCluster | undefined;
  try {
    rules = await governance(options, separator, redis, logLine);
    // Over HTTP the instances sharing this Redis act as one; on a socket they share the counts.
    if (redis && !socketAddress) cluster = await joinCluster(redis, advertised, logLine);
    return await serveGateway(parsed, { ...settings, cluster }, rules);
  } finally {
    await rules?.close();
    await cluster?.close();
    await redis?.close();
  }
}

/**
 * Where the other instances reach this one (--advertise): given, or the --listen address
 * (its port once known) unless that is a wildcard no peer can dial.
 */
function advertisedUrl(
  options: ParsedArgs["options"],
  host: string,
  clustered: boolean,
  socketAddress: SocketTarget | undefined,
): URL | undefined {
  const given = options.advertise as string | undefined;
  if (given === undefined) {
    if (clustered && !socketAddress && (host === "0.0.0.0" || host === "::")) {
      throw new UsageError(
        `--redis with --listen on ${host}: give --advertise <url>, where the other gateway instances reach this one`,
      );
    }
    return undefined;
  }
  if (!clustered || socketAddress) {
    throw new UsageError("--advertise goes with --redis <url> and an HTTP --listen");
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(
      `--advertise takes a URL such as http://10.0.0.5:8080, not ${JSON.stringify(given)}`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError("--advertise takes an http:// or https:// URL");
  }
  return url;
}

/** What runGateway worked out from the command line, for serveGateway. */
interface ServeSettings {
  many: string[] | undefined;
  fromConfig: ReturnType<typeof configuredChild>;
  listenText: string;
  socketAddress: SocketTarget | undefined;
  host: string;
  port: number;
  path: string;
  era: "modern" | "legacy" | "auto";
  timeoutMs: number | undefined;
  maxUrisPerStream: number;
  access: HttpHandlerOptions;
  separator: string;
  /** A token or OAuth guards the endpoint. */
  guarded: boolean;
  /** With --redis over HTTP: the other instances this one acts as one with. */
  cluster: GatewayCluster | undefined;
}

/** Starts the server(s), serves them until stopped; the rules are the caller's to close. */
async function serveGateway(
  parsed: ParsedArgs,
  settings: ServeSettings,
  rules: Governance,
): Promise<number> {
  const { options } = parsed;
  const { many, fromConfig, listenText, socketAddress, host, port, era, timeoutMs } = settings;
  const { path, maxUrisPerStream, access, separator, cluster } = settings;
  // Instances of a cluster seal multi round-trip state with one key.
  const shared = cluster ? { mrtrSecret: cluster.mrtrSecret } : {};
  if (many) {
    const flagEnv = childEnvSettings(options);
    return runManyGateway({
      host,
      port,
      entries: many.map((name) => {
        const target = configTarget({ ...options, server: name }, process.env, true);
        const toolRules = entryToolRules(options, name);
        const upstream: UpstreamSettings = {
          era,
          timeoutMs,
          maxUrisPerStream,
          toolRules,
          ...shared,
          ...(cluster ? { eventBus: cluster.eventsFor(serverPath(name)) } : {}),
        };
        if (target.kind === "http") {
          const { url, headers = {}, sse = false } = target;
          return {
            name,
            start: () => startGatewayRemote({ ...upstream, label: name, url, headers, sse }),
          };
        }
        if (target.kind !== "stdio") throw new UsageError(`${name}: not a stdio or URL entry`);
        return {
          name,
          start: () =>
            startGatewayChild({
              ...upstream,
              label: name,
              command: target.command,
              args: target.args,
              env: { ...target.env, ...flagEnv.env },
              inheritEnv: flagEnv.inheritEnv,
              cwd: target.cwd,
              verbose: options.verbose === true,
            }),
        };
      }),
      // With --auth-issuer, one protected resource for every path: the origin (or
      // --auth-resource), so a token for it opens /mcp and each /servers/<name>/mcp alike.
      handlerOptions: access,
      governance: rules,
      separator,
      cluster,
    });
  }
  const verbose = options.verbose === true;
  const [command, ...args] = fromConfig
    ? [fromConfig.command, ...fromConfig.args]
    : parsed.command!;
  const flagEnv = childEnvSettings(options);
  const childEnv = {
    env: { ...fromConfig?.env, ...flagEnv.env },
    inheritEnv: flagEnv.inheritEnv,
  };
  if (verbose) logLine(describeEnvironment(childEnv));
  const child = await startGatewayChild({
    command: command!,
    args,
    env: childEnv.env,
    inheritEnv: childEnv.inheritEnv,
    cwd: fromConfig?.cwd,
    era,
    timeoutMs,
    maxUrisPerStream,
    verbose,
    label: "child",
    ...shared,
    ...(cluster ? { eventBus: cluster.eventsFor(path) } : {}),
    ...(fromConfig
      ? { toolRules: entryToolRules(options, options.server as string | undefined) }
      : {}),
  });
  const { supervised, server } = child;
  // Outermost: a request another instance holds goes there before any rule counts it here.
  cluster?.apply(server, path);
  rules.apply(server, undefined);
  let served: { url: string; close(): Promise<void> };
  try {
    served = socketAddress
      ? await serveSocket(server, socketAddress)
      : await serveHttp(server, {
          host,
          port,
          path,
          ...access,
          legacySse: options["legacy-sse"] === true,
          health: { check: () => child.health() },
          ...(cluster ? { legacy: cluster.legacyFor(path) } : {}),
        });
  } catch (error) {
    // Nothing to serve on: stop the child rather than hang with it.
    await child.close();
    throw listenFailure(error, listenText);
  }
  if (!isLoopbackHostname(host) && host !== "::1") {
    logLine(
      `mcpwire gateway: warning: listening on ${host}, beyond this machine${settings.guarded ? "" : ", without --token"}`,
    );
  }
  await cluster?.ready();
  cluster?.listening(new URL(served.url).origin);

  // Runs until a stop signal (SIGHUP too: a closed terminal must not orphan the child) or until
  // the child cannot be kept running. Stopping on a signal is this service's normal end: exit 0.
  // The handlers go in before the lines below: whoever reads "listening on" may signal at once.
  let stopListening = () => {};
  const stopped = new Promise<string>((resolve) => {
    stopListening = onStopSignals((signal) => resolve(signal));
    void supervised.closed.then((info) =>
      resolve(info.error ? `child lost: ${info.error.message}` : "child closed"),
    );
  });
  logLine(`child running (pid ${supervised.pid})`);
  logLine(`listening on ${served.url}`);
  const reason = await stopped;
  stopListening();
  if (verbose) logLine(`mcpwire gateway: stopping (${reason})`);
  await served.close();
  await child.close();
  return reason.startsWith("child lost") ? 1 : 0;
}

/**
 * Between a server's name and its tool's or prompt's on /mcp and in the globs of --allow-tools
 * and --deny-tools: "_" unless --separator says otherwise, within the tool-name characters.
 */
function nameSeparator(given: string | undefined): string {
  if (given === undefined) return "_";
  if (!/^[A-Za-z0-9_.-]{1,8}$/.test(given)) {
    throw new UsageError(
      "--separator must be 1 to 8 of the characters tool names allow (A-Z a-z 0-9 _ - .)",
    );
  }
  return given;
}

/**
 * The entries to serve side by side, when there are several: those `--server a,b` names, or
 * with `--config` alone every entry of the file (stdio servers and URLs).
 */
function severalEntries(parsed: ParsedArgs): string[] | undefined {
  const { options } = parsed;
  if (parsed.command !== undefined || options.config === undefined) return undefined;
  const named = options.server as string | undefined;
  if (named !== undefined && !named.includes(",")) return undefined;
  const config = readServerConfig(options.config as string);
  if (named !== undefined) {
    const names = [...new Set(named.split(",").map((name) => name.trim()))].filter(Boolean);
    for (const name of names) findServer(config, name);
    return names;
  }
  const names = config.entries.map((entry) => entry.name);
  return names.length > 1 ? names : undefined;
}

/** The `"tools"` rules of the config entry `name`, if it has some. */
function entryToolRules(options: ParsedArgs["options"], name: string | undefined) {
  if (options.config === undefined && name === undefined) return undefined;
  const config = readServerConfig((options.config as string | undefined) ?? DEFAULT_CONFIG);
  const entry = name === undefined ? config.entries[0] : findServer(config, name);
  return entry?.tools;
}

/** The stdio server `--server NAME` picks from `--config FILE`, if asked. */
function configuredChild(parsed: ParsedArgs) {
  const { options } = parsed;
  if (options.server === undefined && options.config === undefined) return undefined;
  if (parsed.command !== undefined) {
    throw new UsageError("give the server either with --server/--config or after --, not both");
  }
  const target = configTarget(options);
  if (target.kind !== "stdio") {
    throw new UsageError("the gateway serves a stdio server: that --server entry has a URL");
  }
  return target;
}

function socketListen(text: string): SocketTarget {
  try {
    return parseSocketTarget(text);
  } catch (error) {
    throw new UsageError(`--listen: ${(error as Error).message}`);
  }
}

/** Serves the gateway on a TCP port or Unix socket, one MCP connection per accepted socket. */
async function serveSocket(server: GatewayServer, address: SocketTarget) {
  const listener = await listenSocket(address, (transport) => void server.connect(transport), {
    onError: (error) => logLine(`mcpwire gateway: ${error.message}`),
  });
  return { url: formatSocketTarget(listener.address), close: () => listener.close() };
}

/** Options of the HTTP-serving gateway that --stdio <url> has no use for. */
const SERVING_ONLY = [
  "path",
  "token",
  "token-file",
  "auth-issuer",
  "auth-resource",
  "auth-scopes",
  "cors",
  "legacy-sse",
  "allowed-host",
  "allowed-origin",
  "era",
  "timeout",
  "max-uris-per-stream",
  "config",
  "separator",
  ...Object.keys(GOVERNANCE_OPTIONS),
];

/** `--stdio <url>`: the remote server as a local stdio server (see gateway-stdio.ts). */
async function reverseGateway(parsed: ParsedArgs): Promise<number> {
  const { options } = parsed;
  if (
    parsed.command !== undefined ||
    options.listen !== undefined ||
    options.server !== undefined ||
    hasEnvOptions(options)
  ) {
    throw new UsageError(
      "gateway --stdio <url> takes a URL, not --listen, --env or a command after --",
    );
  }
  if (parsed.positionals.length > 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
  }
  // What shapes an HTTP face (its access, limits, audit) has nothing to act on here: refused,
  // rather than a rule the user believes in silently left out.
  const unused = SERVING_ONLY.find((name) => options[name] !== undefined);
  if (unused !== undefined) {
    throw new UsageError(
      `gateway --stdio <url> does not take --${unused}: it serves one local client over stdio`,
    );
  }
  const target = parseTarget(options.stdio as string, undefined);
  if (target.kind !== "http") {
    throw new UsageError("gateway --stdio needs an http(s) URL of a Streamable HTTP server");
  }
  const { headers, verbose, auth } = connectionSettings(options);
  // The upstream's authorization: the same flags and stored tokens as every other verb.
  const provider = await httpAuthProvider(target.url, auth, headers, (line) =>
    logLine(`mcpwire gateway: ${line}`),
  );
  return runReverseGateway({ url: target.url, headers, verbose, auth: provider });
}

function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) {
    throw new UsageError(
      `--listen must be host:port (e.g. 127.0.0.1:8080), got ${JSON.stringify(text)}`,
    );
  }
  return { host: match[1] ?? match[2]!, port };
}

/** A failed listen as one line that names --listen (EADDRINUSE, EACCES, a bad address). */
export function listenFailure(error: unknown, listen: string): CliError {
  // The socket listener wraps the system error; its cause has the code.
  const code =
    (error as NodeJS.ErrnoException).code ??
    ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE") {
    return new CliError(
      `--listen ${listen}: the port is already in use; pick another port (or 0 for any free one)`,
    );
  }
  if (code === "EACCES") {
    return new CliError(
      `--listen ${listen}: not allowed to listen there (ports below 1024 need privileges)`,
    );
  }
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
    return new CliError(`--listen ${listen}: no such address on this machine (${code})`);
  }
  return new CliError(`--listen ${listen}: ${(error as Error).message}`);
}
