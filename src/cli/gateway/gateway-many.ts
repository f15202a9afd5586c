/**
 * `mcpwire gateway --config FILE` over several entries: every stdio server of the file (or those
 * `--server a,b` names) behind one listener, all at `/mcp` with names prefixed by their server
 * (gateway-aggregate.ts) and each at `/servers/<name>/mcp` with its own names, both eras, each
 * child supervised on its own. One child's crash, restart or failure to start
 * never disturbs the others; `/healthz` reports each.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { printableLine } from "../../text/printable.js";
import type { HealthReport } from "../../transports/http/health.js";
import { createNodeListener } from "../../transports/http/node-adapter.js";
import { createHttpHandler, type HttpHandler } from "../../transports/http/server.js";
import { logLine } from "../connect/session.js";
import { onStopSignals } from "../connect/stop-signals.js";
import { CliError } from "../core/errors.js";
import { instrumentServer } from "../core/instrumentation.js";
import { AggregateServer } from "./gateway-aggregate.js";
import type { GatewayUpstream } from "./gateway-child.js";
import type { GatewayCluster } from "./gateway-cluster.js";
import type { Governance } from "./gateway-governance.js";

/** One entry of the file, ready to start. */
export interface ManyEntry {
  name: string;
  start(): Promise<GatewayUpstream>;
}

export interface ManySettings {
  host: string;
  port: number;
  entries: ManyEntry[];
  /** What every server's HTTP handler shares (Host/Origin checks, CORS, a bearer check). */
  handlerOptions: Parameters<typeof createHttpHandler>[1];
  governance: Governance;
  /** Between a server's name and its tool's or prompt's on /mcp. */
  separator: string;
  /** With --redis: the other instances this one acts as one with. */
  cluster: GatewayCluster | undefined;
}

type Upstream =
  | {
      name: string;
      child: GatewayUpstream;
      handler: HttpHandler;
      listener: ReturnType<typeof createNodeListener>;
    }
  | { name: string; child: undefined; failure: string };

/** Where one entry is served. */
export function serverPath(name: string): string {
  return `/servers/${encodeURIComponent(name)}/mcp`;
}

export async function runManyGateway(settings: ManySettings): Promise<number> {
  const started = await Promise.allSettled(settings.entries.map((entry) => entry.start()));
  const children: (GatewayUpstream | undefined)[] = started.map((outcome, index) => {
    if (outcome.status === "fulfilled") return outcome.value;
    const name = settings.entries[index]!.name;
    const error = outcome.reason as Error;
    logLine(`[${printableLine(name)}] could not start: ${error.message}`);
    for (const line of (error as CliError).details ?? [])
      logLine(`[${printableLine(name)}]   ${line}`);
    return undefined;
  });
  if (children.every((child) => child === undefined)) {
    throw new CliError("no server of the config file could be started", 1);
  }

  const http = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(settings.port, settings.host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const hostPart = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const origin = `http://${hostPart}:${address.port}`;
  settings.handlerOptions?.auth?.useEndpointUrl?.(origin);
  const { cluster } = settings;
  await cluster?.ready();
  cluster?.listening(origin);
  // Each endpoint's legacy sessions shared with the other instances, under its own path.
  const handlerOptionsAt = (path: string) =>
    cluster
      ? { ...settings.handlerOptions, legacy: cluster.legacyFor(path) }
      : settings.handlerOptions;

  const upstreams: Upstream[] = settings.entries.map((entry, index) => {
    const child = children[index];
    if (child === undefined) {
      return { name: entry.name, child: undefined, failure: "could not start" };
    }
    // Outermost: a request another instance holds goes there before any rule counts it here.
    cluster?.apply(child.server, serverPath(entry.name));
    settings.governance.apply(child.server, entry.name);
    const handler = createHttpHandler(child.server, handlerOptionsAt(serverPath(entry.name)));
    const listener = createNodeListener(handler, { path: serverPath(entry.name), origin });
    return { name: entry.name, child, handler, listener };
  });
  // /mcp: every running server at once, names prefixed; it also answers GET /healthz for all.
  const aggregate = instrumentServer(
    new AggregateServer(
      upstreams.flatMap((upstream) =>
        upstream.child ? [{ name: upstream.name, server: upstream.child.server }] : [],
      ),
      {
        serverInfo: {
          name: "mcpwire-gateway",
          version: "0.1.0",
          title: "gateway to several servers",
        },
        separator: settings.separator,
        ...(cluster ? { mrtr: { secret: cluster.mrtrSecret } } : {}),
        report: (line) => logLine(`mcpwire gateway: ${line}`),
        onError: (error) => logLine(`mcpwire gateway: ${error.message}`),
      },
    ),
  );
  cluster?.apply(aggregate, "/mcp");
  settings.governance.apply(aggregate, undefined);
  const aggregateHandler = createHttpHandler(aggregate, {
    ...handlerOptionsAt("/mcp"),
    health: { check: () => healthOfAll(upstreams) },
  });
  const aggregateListener = createNodeListener(aggregateHandler, { path: "/mcp", origin });
  const byPath = new Map(upstreams.map((upstream) => [serverPath(upstream.name), upstream]));
  http.on("request", (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    // /mcp, the health check and the protected resource metadata (/.well-known/…).
    if (path === "/mcp" || path === "/healthz" || path.startsWith("/.well-known/")) {
      return aggregateListener(req, res);
    }
    const upstream = byPath.get(path);
    if (upstream === undefined) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not Found");
    } else if (upstream.child === undefined) {
      res.writeHead(503, { "Content-Type": "text/plain" }).end(`${upstream.name} could not start`);
    } else {
      upstream.listener(req, res);
    }
  });

  let stopping = false;
  for (const upstream of upstreams) {
    if (upstream.child === undefined) continue;
    logLine(`${upstream.name}: ${upstream.child.running}`);
    // An upstream lost for good stays down; the others go on.
    void upstream.child.lost.then((why) => {
      if (!stopping) logLine(`${upstream.name}: ${why}`);
    });
  }
  // Stop signals are heard before "listening on" is printed: whoever reads it may signal at once.
  let stopListening = () => {};
  const stopped = new Promise<string>((resolve) => {
    stopListening = onStopSignals((signal) => resolve(signal));
  });
  for (const upstream of upstreams)
    logLine(`serving ${upstream.name} at ${origin}${serverPath(upstream.name)}`);
  logLine(`serving them all at ${origin}/mcp (names prefixed with <server>${settings.separator})`);
  logLine(`listening on ${origin}`);
  await stopped;
  stopping = true;
  stopListening();
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  await aggregateHandler.close();
  await Promise.all(
    upstreams.map(async (upstream) => {
      if (upstream.child === undefined) return;
      await upstream.handler.close();
      await upstream.child.close();
    }),
  );
  http.closeAllConnections();
  await closed;
  return 0;
}

/** GET /healthz: each server's state; 200 while any is up ("ok" or "degraded"), else 503. */
function healthOfAll(upstreams: readonly Upstream[]): HealthReport {
  const servers: Record<string, Record<string, string | number | null>> = {};
  let up = 0;
  for (const upstream of upstreams) {
    if (upstream.child === undefined) {
      servers[upstream.name] = { status: "down", restarts: 0 };
      continue;
    }
    const health = upstream.child.health();
    if (health.ok) up++;
    servers[upstream.name] = health.details;
  }
  const status = up === upstreams.length ? "ok" : up > 0 ? "degraded" : "down";
  return { ok: up > 0, details: { status, servers } };
}
