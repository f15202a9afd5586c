/**
 * One stdio server behind the gateway: the supervised child, the client that speaks to it, and
 * the GatewayServer that offers it over HTTP (or a socket). `mcpwire gateway` runs one; with a
 * config file and no `--server`, one per entry (gateway-many.ts).
 */
import { McpClient } from "../../client/index.js";
import type { Transport } from "../../protocol/transport.js";
import type { SubscriptionEventSource } from "../../server/subscriptions.js";
import { SupervisedStdioTransport } from "../../transports/stdio/supervisor.js";
import type { ToolRules } from "../connect/config-file.js";
import { logLine } from "../connect/session.js";
import { WireLogTransport } from "../connect/wire-log.js";
import {
  clientConnected,
  instrumentClient,
  instrumentServer,
  tracedTasks,
} from "../core/instrumentation.js";
import { writeErrChunk } from "../core/terminal.js";
import { CHILD_CLIENT_CAPABILITIES, GatewayServer } from "./gateway-server.js";
import { childStartFailure, StartupStderr } from "./gateway-start.js";

export interface GatewayChildSettings {
  command: string;
  args: string[];
  env: Record<string, string>;
  inheritEnv: boolean | undefined;
  cwd: string | undefined;
  era: "auto" | "modern" | "legacy";
  timeoutMs: number | undefined;
  maxUrisPerStream: number;
  verbose: boolean;
  /** How the child's lines are marked in the gateway's log ("child", or the entry's name). */
  label: string;
}

/** A server behind the gateway: a stdio child here, or a remote one (gateway-remote.ts). */
export interface GatewayUpstream {
  readonly label: string;
  readonly client: McpClient;
  readonly server: GatewayServer;
  /** For the log: what runs ("child running (pid 42)", "remote https://…"). */
  readonly running: string;
  /** Resolves with why, once the upstream is lost for good (its supervisor gave up, say). */
  readonly lost: Promise<string>;
  /** For GET /healthz: up, restarting or down, and public facts only. */
  health(): { ok: boolean; details: Record<string, string | number | null> };
  /** Ends the child the spec's way (stdin, SIGTERM, SIGKILL), its process tree included. */
  close(): Promise<void>;
}

export interface GatewayChild extends GatewayUpstream {
  readonly supervised: SupervisedStdioTransport;
}

/** Starts the child and waits for its handshake; a child that dies there is one CliError. */
export async function startGatewayChild(settings: GatewayChildSettings): Promise<GatewayChild> {
  const { verbose, label } = settings;
  const mark = (line: string) => (label === "child" ? line : `[${label}] ${line}`);
  const childStderr = new StartupStderr((text) => writeErrChunk(prefixLines(`[${label}] `, text)));
  const supervised = new SupervisedStdioTransport({
    command: settings.command,
    args: settings.args,
    env: settings.env,
    inheritEnv: settings.inheritEnv,
    cwd: settings.cwd,
    stderr: "pipe",
    // The child's logs are the operator's logs: keep them, marked as the child's.
    onStderr: (text) => childStderr.chunk(text),
  });
  // Restarts are always worth a line; the messages themselves only with --verbose.
  const transport: Transport = new WireLogTransport(
    supervised,
    (line) => {
      // Closing is the normal end (or told better by the error that caused it), and a child
      // lost while starting is told once, by the failure.
      if ((line === "-- closed" || childStderr.starting) && !verbose) return;
      logLine(
        mark(line.startsWith("-- resumed") ? `-- child restarted (pid ${supervised.pid})` : line),
      );
    },
    { messages: verbose },
  );
  const { client, server } = await gatewayClient(settings, mark, async (client) => {
    try {
      await client.connect(transport);
    } catch (error) {
      await supervised.close();
      throw childStartFailure(error, childStderr);
    }
    childStderr.started();
  });
  const startedAt = Date.now();
  return {
    label,
    supervised,
    client,
    server,
    running: `child running (pid ${supervised.pid})`,
    lost: supervised.closed.then(
      (info) => `child lost${info.error ? `: ${info.error.message}` : ""}`,
    ),
    health: () => childHealth(supervised, client, startedAt),
    close: async () => {
      await client.close();
      await supervised.close();
    },
  };
}

/** What a gateway's client to one upstream and the GatewayServer in front of it need. */
export interface UpstreamSettings {
  era: "auto" | "modern" | "legacy";
  timeoutMs: number | undefined;
  maxUrisPerStream: number;
  /** The config entry's rules for its tools, if it has any. */
  toolRules?: ToolRules;
  /** The multi round-trip state key shared by a cluster's instances (--redis). */
  mrtrSecret?: string[];
  /** Where the upstream's events reach listeners: every instance of a cluster (--redis). */
  eventBus?: SubscriptionEventSource;
}

/**
 * The client that speaks to one upstream, connected by `connect`, and the GatewayServer that
 * offers it: what the upstream asks (elicitation, sampling, roots) goes to the caller whose
 * call it is making.
 */
export async function gatewayClient(
  settings: UpstreamSettings,
  mark: (line: string) => string,
  connect: (client: McpClient) => Promise<void>,
): Promise<{ client: McpClient; server: GatewayServer }> {
  let server: GatewayServer | undefined;
  const client = instrumentClient(
    new McpClient({
      clientInfo: { name: "mcpwire-gateway", version: "0.1.0" },
      era: settings.era,
      requestTimeoutMs: settings.timeoutMs,
      cache: false,
      // Per request a modern child hears the HTTP client's extensions instead (gateway-server.ts);
      // the tasks extension here is for the gateway's own listens for task status.
      capabilities: CHILD_CLIENT_CAPABILITIES,
      tasks: true,
      handlers: {
        // A round's questions go to the HTTP client together, as the child asked them.
        concurrent: true,
        elicitation: (params, context) => server!.childHandlers().elicitation!(params, context),
        sampling: (params, context) => server!.childHandlers().sampling!(params, context),
        roots: (context) => server!.childHandlers().roots!(context),
      },
      onProtocolError: (error) => logLine(mark(`mcpwire gateway: ${error.message}`)),
      // Logs; list changes and resource updates come through the subscriptions the server opens.
      onNotification: (method, params) => server?.childNotification(method, params),
    }),
  );
  await connect(client);
  clientConnected(client);
  server = new GatewayServer(() => client, {
    serverInfo: {
      name: "mcpwire-gateway",
      version: "0.1.0",
      ...(client.serverInfo ? { title: `gateway to ${client.serverInfo.name}` } : {}),
    },
    instructions: client.instructions,
    onError: (error) => logLine(mark(`mcpwire gateway: ${error.message}`)),
    maxUrisPerStream: settings.maxUrisPerStream,
    childTimeoutMs: settings.timeoutMs,
    ...(settings.toolRules ? { toolRules: settings.toolRules } : {}),
    ...(settings.mrtrSecret ? { mrtr: { secret: settings.mrtrSecret } } : {}),
    ...(settings.eventBus ? { eventBus: settings.eventBus } : {}),
    ...tracedTasks(),
  });
  instrumentServer(server);
  server.start();
  return { client, server };
}

/** The child's state; public, so nothing beyond pid, era and times. */
function childHealth(supervised: SupervisedStdioTransport, client: McpClient, startedAt: number) {
  // Up once the child runs and has answered the handshake (again, after a restart).
  const status = supervised.status === "up" && client.restarting ? "restarting" : supervised.status;
  const up = status === "up";
  return {
    ok: up,
    details: {
      status: up ? "ok" : status,
      ...(up ? { pid: supervised.pid ?? null } : {}),
      era: client.era ?? null,
      restarts: supervised.restarts,
      uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
    },
  };
}

function prefixLines(prefix: string, text: string): string {
  return `${text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => prefix + line)
    .join("\n")}\n`;
}
