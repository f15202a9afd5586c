/**
 * The `mcpwire` command as a function: `run(argv, io)` parses the verb, loads its folder only
 * then (so `--version`, `--help` and a mistyped verb never load HTTP, auth or server code) and
 * returns the exit code. main.ts, the bin, calls it with the process's streams; tests call it in
 * process with their own. Every failure ends as one line on stderr (`mcpwire: …`) and a non-zero
 * exit code (see core/errors.ts); `--verbose` adds the wire.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { refuseNodeEnvFile } from "./connect/child-env.js";
import { AUTH_USAGE } from "./connect/http-auth-options.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "./core/errors.js";
import { type CliIo, withIo, writeErr, writeOut } from "./core/terminal.js";

export type { CliIo, TextSink } from "./core/terminal.js";

const USAGE = `mcpwire — Model Context Protocol over stdio, sockets and Streamable HTTP

Usage:
  mcpwire discover <target>                      era, versions, capabilities, tools, resources, prompts
  mcpwire call <target> <tool> [args]            call a tool (exit 1 when the result is an error);
                                                 args: JSON, @file.json, - (stdin) or key=value…
  mcpwire task <target> get|cancel|result|list   show, cancel, await or list tasks
  mcpwire read <target> <uri>                    read a resource
  mcpwire prompt <target> <name> [json-args]     get a prompt
  mcpwire raw <target> <method> [json-params]    send any request, print the JSON result
  mcpwire skills <target> [list|show|download]   a server's skills (download: verified, --to <dir>)
  mcpwire shell <target>                         interactive debug shell (type help inside)
  mcpwire gateway --listen <host:port> -- <command…>   serve a stdio server over Streamable HTTP
  mcpwire gateway --stdio <url>                  offer an HTTP server as a stdio server (stdin/stdout)
  mcpwire tap --out <file> [--] <command…>      transparent stdio proxy: record, flag violations
  mcpwire replay <file> -- <command…>            replay a tap recording, diff the replies
  mcpwire auth login <url> [--paste|--device]    log in to an OAuth-protected server (tokens kept)
  mcpwire auth status [url] | logout [url]       which servers have tokens (never shown) / forget
  mcpwire servers [--config <file>]              list the servers of an MCP config file
  mcpwire completion bash|zsh|fish               print a shell completion script
  mcpwire --version | --help

Targets: http(s)://host/path (Streamable HTTP, era detected), tcp://host:port, unix:/path,
         or -- <command> [args…] at the very end (a stdio server the command starts),
         or --server <name> from --config <file> (default ./.mcp.json; "mcpServers" or "servers";
         its \${input:id} from --input id=VALUE, and a remote entry's \${VAR} sent only with
         --send-env VAR or your yes on a terminal: see mcpwire servers --help).
Options: --era modern|legacy|auto, --header "Name: value" (HTTP, repeatable),
         --timeout <ms> (connecting: default 10000; each request: default 60000, restarted
         by the server's progress notifications),
         --json (results as JSON), --verbose (every message on stderr). Ctrl-C cancels.
         --otel: OpenTelemetry traces and metrics by the OTEL_* variables (OTLP over HTTP;
         prints the trace id on stderr; see docs/observability.md).
${AUTH_USAGE}
Stdio servers get only a small allowlist of our environment (PATH, HOME, …); add to it with
         -e/--env KEY=VALUE (or --env KEY: our own value), --env-from <file>, or --inherit-env.
Exit codes: 0 ok, 1 failure (or a tool result with isError), 2 usage, 128+signal when stopped
            (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
See mcpwire <verb> --help.
`;

type Verb = (argv: readonly string[]) => Promise<number>;

/** Each verb, imported when it is the one asked for. */
const VERBS: Record<string, () => Promise<Verb>> = {
  discover: async () => (await import("./verbs/discover.js")).runDiscover,
  call: async () => (await import("./verbs/call.js")).runCall,
  task: async () => (await import("./verbs/task.js")).runTask,
  read: async () => (await import("./verbs/read.js")).runRead,
  prompt: async () => (await import("./verbs/prompt.js")).runPrompt,
  raw: async () => (await import("./verbs/raw.js")).runRaw,
  skills: async () => (await import("./verbs/skills.js")).runSkills,
  shell: async () => (await import("./shell/shell.js")).runShell,
  gateway: async () => (await import("./gateway/gateway.js")).runGateway,
  tap: async () => (await import("./tap/tap.js")).runTap,
  replay: async () => (await import("./verbs/replay.js")).runReplay,
  servers: async () => (await import("./verbs/servers.js")).runServers,
  auth: async () => (await import("./auth/auth.js")).runAuth,
  completion: async () => (await import("./verbs/completion.js")).runCompletion,
};

/**
 * The package's version, from the package.json above this file: the nearest one named mcpwire
 * (tsc's output and the bundle sit at different depths below it).
 */
function version(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const path = join(dir, "package.json");
    if (existsSync(path)) {
      const manifest = JSON.parse(readFileSync(path, "utf8")) as { name?: string; version: string };
      if (manifest.name === "mcpwire") return manifest.version;
    }
    if (dirname(dir) === dir) throw new CliError("cannot find mcpwire's package.json");
  }
}

async function dispatch(given: readonly string[]): Promise<number> {
  refuseNodeEnvFile(given);
  // --otel is the command's, whichever verb follows (and only before `--`: after it, the
  // arguments are a stdio server's): taken out before the verb reads its options.
  const separator = given.indexOf("--");
  const otelAt = given.indexOf("--otel");
  const otel = otelAt !== -1 && (separator === -1 || otelAt < separator);
  const argv = otel ? given.filter((_, index) => index !== otelAt) : given;
  const [first, ...rest] = argv;
  if (first === "--version" || first === "-V") {
    writeOut(version());
    return EXIT_OK;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    writeOut(USAGE);
    return EXIT_OK;
  }
  // Nothing asked: the usage, as the mistake it is (stderr, exit 2).
  if (first === undefined) {
    writeErr(USAGE);
    return EXIT_USAGE;
  }
  const load = VERBS[first];
  if (!load) {
    throw new CliError(`unknown command ${JSON.stringify(first)} (see mcpwire --help)`, EXIT_USAGE);
  }
  const verb = await load();
  if (!otel) return verb(rest);
  // Loaded only now: without --otel the command never touches OpenTelemetry.
  const { startCliTelemetry } = await import("./core/telemetry.js");
  const telemetry = await startCliTelemetry(first);
  let exitCode = 1;
  try {
    exitCode = await telemetry.run(() => verb(rest));
    return exitCode;
  } finally {
    await telemetry.finish(exitCode);
  }
}

/** A failure as the user sees it; only a failure from outside the CLI's own loads session.ts. */
async function explained(error: unknown): Promise<CliError> {
  if (error instanceof CliError) return error;
  return (await import("./connect/session.js")).explain(error);
}

async function report(error: unknown, argv: readonly string[]): Promise<number> {
  const failure = await explained(error);
  // Only our own options count: a --verbose after `--` belongs to the server's command line.
  const separator = argv.indexOf("--");
  const verbose = argv.slice(0, separator === -1 ? undefined : separator).includes("--verbose");
  const [line, ...more] = failure.message.split("\n");
  writeErr(`mcpwire: ${line}`);
  // Details (a crashed server's last stderr lines) always; the rest of a long message with --verbose.
  if (failure.details.length > 0) writeErr(failure.details.join("\n"));
  else if (verbose && more.length > 0) writeErr(more.join("\n"));
  return failure.exitCode;
}

/**
 * Runs the command with `argv` (what follows `mcpwire`) and resolves to its exit code; it never
 * rejects. Without `io` it writes to the process's stdout and stderr. What is not text for a
 * person stays the process's: stdin, the environment, signals (a stop signal ends the process)
 * and the protocol streams of `gateway --stdio` and `tap`.
 */
export async function run(argv: readonly string[], io?: CliIo): Promise<number> {
  const attempt = async (): Promise<number> => {
    try {
      return await dispatch(argv);
    } catch (error) {
      return report(error, argv);
    }
  };
  return io === undefined ? attempt() : withIo(io, attempt);
}
