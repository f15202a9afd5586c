import { McpClient } from "../../client/index.js";
import type { ClientHandlers } from "../../client/types.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { Transport } from "../../protocol/transport.js";
import { printableLine } from "../../text/printable.js";
import type { HttpAuthProvider } from "../../transports/http/client/auth.js";
import { HttpClientTransport } from "../../transports/http/client/client-transport.js";
import { endpointKey } from "../../transports/http/client/era.js";
import { connectSocket } from "../../transports/socket/client.js";
import { parseSocketTarget } from "../../transports/socket/target.js";
import { StdioClientTransport } from "../../transports/stdio/client.js";
import type { OptionKind, ParsedArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";
import { clientConnected, instrumentClient } from "../core/instrumentation.js";
import { childEnvSettings, ENV_OPTIONS, hasEnvOptions } from "./child-env.js";
import { CONFIG_OPTIONS, configTarget, resolveConfigTarget } from "./config-target.js";
import {
  httpFailure,
  junkMessage,
  legacyOnlyRefusal,
  networkFailure,
  StdoutJunkWatch,
  systemErrorCode,
} from "./connect-diagnosis.js";
import { type AuthSettings, authSettings, httpAuthProvider } from "./http-auth.js";
import { AUTH_OPTIONS } from "./http-auth-options.js";
import { inputCapabilities } from "./input-answers.js";
import { STDERR_LINES_SHOWN } from "./server-exit.js";
import type { Target } from "./target-kind.js";
import { WireLogTransport } from "./wire-log.js";

export type { Target } from "./target-kind.js";

/** The options every verb that talks to a server understands. */
export const CONNECTION_OPTIONS: Record<string, OptionKind> = {
  era: "value",
  header: "list",
  timeout: "value",
  json: "flag",
  verbose: "flag",
  help: "flag",
  ...CONFIG_OPTIONS,
  ...ENV_OPTIONS,
  ...AUTH_OPTIONS,
};

export interface ConnectionSettings {
  era: "auto" | "modern" | "legacy";
  headers: Record<string, string>;
  timeoutMs: number | undefined;
  json: boolean;
  verbose: boolean;
  auth: AuthSettings;
}

/**
 * Reads a target: an http(s) URL, `tcp://host:port`, `unix:/path`, or the command line after
 * `--` (a stdio server). With `--`, every positional argument belongs to the verb.
 */
export function parseTarget(text: string | undefined, command: string[] | undefined): Target {
  if (command !== undefined) {
    return { kind: "stdio", command: command[0]!, args: command.slice(1) };
  }
  if (text === undefined) {
    throw new UsageError("missing target: give a URL, tcp://host:port, unix:/path or -- <command>");
  }
  const lower = text.toLowerCase();
  if (lower.startsWith("http://") || lower.startsWith("https://")) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new UsageError(`invalid URL ${JSON.stringify(text)}`);
    }
    return { kind: "http", url };
  }
  if (lower.startsWith("tcp://") || lower.startsWith("unix:")) {
    try {
      return { kind: "socket", address: parseSocketTarget(text), text };
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  throw new UsageError(
    `unsupported target ${JSON.stringify(text)}: expected an http(s) URL, tcp://host:port, ` +
      "unix:/path, or -- <command> [args…] at the end",
  );
}

/**
 * Splits a verb's positionals into the target and the verb's own arguments. A config file's
 * entry may ask the user (its `${input:…}`, consent to send a variable) on a terminal.
 */
export async function splitTarget(args: ParsedArgs): Promise<{ target: Target; rest: string[] }> {
  if (args.options.server !== undefined || args.options.config !== undefined) {
    if (args.command !== undefined) {
      throw new UsageError("give the server either with --server/--config or after --, not both");
    }
    const target = await resolveConfigTarget(args.options);
    return { target: withEnvOptions(target, args), rest: args.positionals };
  }
  if (args.command !== undefined) {
    return {
      target: withEnvOptions(parseTarget(undefined, args.command), args),
      rest: args.positionals,
    };
  }
  const [first, ...rest] = args.positionals;
  return { target: withEnvOptions(parseTarget(first, undefined), args), rest };
}

/** The gateway's way in: never asks (see config-target.ts). */
export { configTarget };

/** Adds -e/--env-from/--inherit-env to a stdio target (on top of a config file's env). */
function withEnvOptions(target: Target, args: ParsedArgs): Target {
  if (!hasEnvOptions(args.options)) return target;
  if (target.kind !== "stdio") {
    throw new UsageError(
      "--env, --env-from and --inherit-env are for a stdio server (-- <command>)",
    );
  }
  const { env, inheritEnv } = childEnvSettings(args.options);
  return {
    ...target,
    env: { ...target.env, ...env },
    inheritEnv: inheritEnv || target.inheritEnv === true,
  };
}

export function connectionSettings(options: ParsedArgs["options"]): ConnectionSettings {
  const era = (options.era as string | undefined) ?? "auto";
  if (era !== "auto" && era !== "modern" && era !== "legacy") {
    throw new UsageError(`--era must be modern, legacy or auto, not ${JSON.stringify(era)}`);
  }
  const headers: Record<string, string> = {};
  for (const header of (options.header as string[] | undefined) ?? []) {
    const colon = header.indexOf(":");
    const name = colon === -1 ? "" : header.slice(0, colon).trim();
    if (name === "" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`--header must look like "Name: value", got ${JSON.stringify(header)}`);
    }
    headers[name] = header.slice(colon + 1).trim();
  }
  let timeoutMs: number | undefined;
  if (options.timeout !== undefined) {
    timeoutMs = Number(options.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      throw new UsageError(`--timeout must be a positive number of milliseconds`);
    }
  }
  return {
    era,
    headers,
    timeoutMs,
    json: options.json === true,
    verbose: options.verbose === true,
    auth: authSettings(options),
  };
}

export function describeTarget(target: Target): string {
  if (target.kind === "http") return target.url.href;
  if (target.kind === "socket") return target.text;
  return [target.command, ...target.args].join(" ");
}

interface OpenOptions {
  handlers?: ClientHandlers;
  onNotification?: (method: string, params: JsonObject) => void;
  /** Where diagnostics go (the wire log, a stdio server's stderr under --verbose). */
  log: (line: string) => void;
  /** Aborting gives up connecting (Ctrl-C on a server that does not answer the handshake). */
  signal?: AbortSignal;
  /**
   * Wraps every transport the client opens, outermost; `base` is the transport itself under
   * any wire log (the shell sends raw messages through the wrapper and reads a child's stderr).
   */
  wrapTransport?: (transport: Transport, base: Transport) => Transport;
  /** Replaces the authorization the settings describe (`auth login` brings its own). */
  auth?: HttpAuthProvider;
}

/**
 * Connects an McpClient to the target with the era, headers and timeout asked for. The client
 * gets a transport factory, so a server that drops the connection on the era probe is reached
 * again with a fresh one for `initialize`.
 */
export async function openClient(
  target: Target,
  settings: ConnectionSettings,
  options: OpenOptions,
): Promise<McpClient> {
  if (target.kind !== "http" && settings.auth.given) {
    throw new UsageError("the authorization options are for an http(s) server");
  }
  const auth =
    options.auth ??
    (target.kind === "http"
      ? await httpAuthProvider(
          target.url,
          settings.auth,
          { ...target.headers, ...settings.headers },
          options.log,
        )
      : undefined);
  const wrap = (transport: Transport, base: Transport = transport): Transport => {
    const logged = settings.verbose ? new WireLogTransport(transport, options.log) : transport;
    return options.wrapTransport ? options.wrapTransport(logged, base) : logged;
  };
  // What went wrong while connecting, when we know better than "timed out".
  let junk: string | undefined;
  let timedOut = false;
  let stdio: StdioClientTransport | undefined;
  let watch: StdoutJunkWatch | undefined;
  const factory = async (): Promise<Transport> => {
    switch (target.kind) {
      case "http":
        return wrap(
          new HttpClientTransport(target.url, {
            headers: { ...target.headers, ...settings.headers },
            ...(auth ? { auth } : {}),
            // An "sse" entry goes straight to the old transport instead of probing first.
            flavourCache: target.sse ? new Map([[endpointKey(target.url), "sse"]]) : undefined,
            onWarning: (message) => options.log(`warning: ${message}`),
          }),
        );
      case "socket":
        return wrap(
          await connectSocket(target.address, { timeoutMs: settings.timeoutMs ?? 10_000 }),
        );
      case "stdio":
        stdio = new StdioClientTransport({
          command: target.command,
          args: target.args,
          env: target.env,
          inheritEnv: target.inheritEnv,
          cwd: target.cwd,
          stderr: "pipe",
          // The server's own logs are noise unless the user is looking at the wire.
          onStderr: settings.verbose
            ? (text) => options.log(prefixLines("[server] ", text))
            : undefined,
        });
        watch = new StdoutJunkWatch(stdio, (excerpt) => {
          junk = excerpt;
          void client.close();
        });
        return wrap(watch, stdio);
    }
  };
  if (settings.verbose && target.kind === "stdio") options.log(describeEnvironment(target));
  const client = instrumentClient(
    new McpClient({
      clientInfo: { name: "mcpwire-cli", version: "0.1.0" },
      era:
        settings.era === "auto" && target.kind === "http" && target.sse ? "legacy" : settings.era,
      requestTimeoutMs: settings.timeoutMs,
      probeTimeoutMs:
        settings.timeoutMs === undefined ? undefined : Math.min(settings.timeoutMs, 3000),
      handlers: options.handlers,
      capabilities: options.handlers ? inputCapabilities(options.handlers) : undefined,
      // `call` follows a task to its end, so modern requests declare the tasks extension.
      tasks: true,
      onNotification: options.onNotification,
      onProtocolError: (error) => {
        // Already the reason connecting failed, said once and better.
        if (junk !== undefined) return;
        // Our own refusals (see input-answers.ts) reach the server as error replies; no need to say so twice.
        if (error.cause instanceof CliError && !settings.verbose) return;
        options.log(`protocol: ${error.message}`);
      },
      // A command runs once; caching would only hide what the server really answers.
      cache: false,
    }),
  );
  // Giving up (the signal, or close() at the deadline) cancels the handshake, closes the
  // transport (a stdio child too) and opens no other; connect() then rejects at once.
  const connectMs = settings.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const deadline = setTimeout(() => {
    timedOut = true;
    void client.close();
  }, connectMs);
  try {
    await client.connect(factory, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const stderr = stderrLines(stdio);
    if (junk !== undefined) throw new CliError(junkMessage(junk), 1, stderr);
    if (timedOut) {
      throw new CliError(
        `${describeTarget(target)} did not finish the MCP handshake within ${connectMs / 1000} s`,
        1,
        [
          ...stderr,
          "hint: is it an MCP server, and does it answer on " +
            (target.kind === "stdio" ? "stdout? " : "this address? ") +
            "--verbose shows the wire; --timeout <ms> waits longer (a first npx download is slow)",
        ],
      );
    }
    const network = networkFailure(systemErrorCode(error), describeTarget(target));
    if (network !== undefined && target.kind !== "stdio") throw new CliError(network);
    const http = target.kind === "http" ? httpFailure(error, target.url) : undefined;
    if (http !== undefined) throw new CliError(http);
    const legacyOnly = settings.era === "modern" ? legacyOnlyRefusal(error) : undefined;
    if (legacyOnly) throw new CliError(legacyOnly.message, 1, [...stderr, legacyOnly.hint]);
    throw error;
  } finally {
    clearTimeout(deadline);
    watch?.stopWatching();
  }
  clientConnected(client);
  return client;
}

/** How long connecting (era detection and handshake) may take unless --timeout says otherwise. */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** A stdio server's last stderr lines, as details under an error. */
function stderrLines(stdio: StdioClientTransport | undefined): string[] {
  const tail = stdio?.stderrTail().trim() ?? "";
  if (tail === "") return [];
  const lines = tail.split(/\r?\n/).slice(-STDERR_LINES_SHOWN);
  return [
    "its stderr ended with:",
    ...lines.map((line) => `  ${printableLine(line.slice(0, 500))}`),
  ];
}

function prefixLines(prefix: string, text: string): string {
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}

/** What --verbose says about a stdio server's environment: names only, values are secrets. */
export function describeEnvironment(target: {
  env?: Record<string, string>;
  inheritEnv?: boolean;
}): string {
  const base = target.inheritEnv ? "our whole environment" : "the allowlist";
  const added = Object.keys(target.env ?? {});
  return `-- server environment: ${base}${added.length > 0 ? ` + ${added.join(", ")}` : ""}`;
}
