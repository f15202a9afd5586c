#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { runAuth } from "./auth/auth.js";
import { refuseNodeEnvFile } from "./connect/child-env.js";
import { AUTH_USAGE } from "./connect/http-auth.js";
import { explain } from "./connect/session.js";
import { CliError } from "./core/errors.js";
import { writeErr, writeOut } from "./core/terminal.js";
import { runGateway } from "./gateway/gateway.js";
import { runShell } from "./shell/shell.js";
import { runTap } from "./tap/tap.js";
import { runCall } from "./verbs/call.js";
import { runCompletion } from "./verbs/completion.js";
import { runDiscover } from "./verbs/discover.js";
import { runPrompt } from "./verbs/prompt.js";
import { runRaw } from "./verbs/raw.js";
import { runRead } from "./verbs/read.js";
import { runReplay } from "./verbs/replay.js";
import { runServers } from "./verbs/servers.js";
import { runTask } from "./verbs/task.js";

/**
 * The `mcpwire` command: one verb per file in this folder. Every failure ends as one line on
 * stderr (`mcpwire: …`) and a non-zero exit code (see errors.ts); `--verbose` adds the wire.
 */
const USAGE = `mcpwire — Model Context Protocol over stdio, sockets and Streamable HTTP

Usage:
  mcpwire discover <target>                      era, versions, capabilities, tools, resources, prompts
  mcpwire call <target> <tool> [args]            call a tool (exit 1 when the result is an error);
                                                 args: JSON, @file.json, - (stdin) or key=value…
  mcpwire task <target> get|cancel <task-id>     show or cancel a task (tasks extension)
  mcpwire read <target> <uri>                    read a resource
  mcpwire prompt <target> <name> [json-args]     get a prompt
  mcpwire raw <target> <method> [json-params]    send any request, print the JSON result
  mcpwire shell <target>                         interactive debug shell (type help inside)
  mcpwire gateway --listen <host:port> -- <command…>   serve a stdio server over Streamable HTTP
  mcpwire gateway --stdio <url>                  offer an HTTP server as a stdio server (stdin/stdout)
  mcpwire tap --out <file> -- <command…>         transparent stdio proxy: record, flag violations
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
${AUTH_USAGE}
Stdio servers get only a small allowlist of our environment (PATH, HOME, …); add to it with
         -e/--env KEY=VALUE (or --env KEY: our own value), --env-from <file>, or --inherit-env.
Exit codes: 0 ok, 1 failure (or a tool result with isError), 2 usage, 128+signal when stopped
            (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
See mcpwire <verb> --help.
`;

const VERBS: Record<string, (argv: readonly string[]) => Promise<number>> = {
  discover: runDiscover,
  call: runCall,
  task: runTask,
  read: runRead,
  prompt: runPrompt,
  raw: runRaw,
  shell: runShell,
  gateway: runGateway,
  tap: runTap,
  replay: runReplay,
  servers: runServers,
  auth: runAuth,
  completion: runCompletion,
};

function version(): string {
  const packageJson = new URL("../../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
}

async function main(argv: string[]): Promise<number> {
  refuseNodeEnvFile(argv);
  const [first, ...rest] = argv;
  if (first === "--version" || first === "-V") {
    writeOut(version());
    return 0;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    writeOut(USAGE);
    return 0;
  }
  // Nothing asked: the usage, as the mistake it is (stderr, exit 2).
  if (first === undefined) {
    writeErr(USAGE);
    return 2;
  }
  const verb = VERBS[first];
  if (!verb) throw new CliError(`unknown command ${JSON.stringify(first)} (see mcpwire --help)`, 2);
  return verb(rest);
}

// Only our own options count: a --verbose after `--` belongs to the server's command line.
const separator = process.argv.indexOf("--");
const ownArgs = process.argv.slice(2, separator === -1 ? undefined : separator);
const verbose = ownArgs.includes("--verbose");
try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const failure = explain(error);
  const [line, ...more] = failure.message.split("\n");
  writeErr(`mcpwire: ${line}`);
  // Details (a crashed server's last stderr lines) always; the rest of a long message with --verbose.
  if (failure.details.length > 0) writeErr(failure.details.join("\n"));
  else if (verbose && more.length > 0) writeErr(more.join("\n"));
  process.exitCode = failure.exitCode;
}
