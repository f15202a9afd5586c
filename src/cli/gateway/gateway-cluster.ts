/**
 * `--redis`: several gateway instances behind a load balancer that sends any request anywhere
 * behave as one. What each instance holds for a client between requests is found again:
 *
 * - Legacy sessions: shared through Redis as any mcpwire server's are (docs/cluster.md), one
 *   namespace per endpoint path.
 * - Multi round-trip calls: a gateway keeps the upstream's call open, parked, between a
 *   client's input rounds (gateway-rounds.ts). The requestState it answers with is recorded as
 *   this instance's; a retry that lands elsewhere is forwarded here (peer-forward.ts). The
 *   state itself is sealed with a key every instance shares.
 * - Tasks the gateway relays or runs: the task id is recorded as this instance's when the call
 *   makes it, and tasks/get, tasks/update, tasks/cancel and tasks/result come here.
 * - Events: an upstream's list changes, resource updates and task status reach listeners on
 *   every instance (one pub/sub channel per endpoint path), so a listen stream on one instance
 *   hears a change a call made through another. A resource is watched on the upstream of the
 *   instance holding the listen stream (or the legacy subscription) only.
 * - The --rate-limit counts (gateway-limits.ts).
 *
 * The routing is the outermost middleware of each endpoint's server, so a forwarded request
 * is counted, checked and audited once, by the instance that serves it. Left per instance:
 * progress and logs of a forwarded request (the owner's stream is read for its reply only),
 * a legacy session's tasks/list (each instance lists what it holds), listen streams (one
 * connection, one instance: they watch that instance's upstreams).
 */
import { createHash, randomBytes } from "node:crypto";
import { isPlainObject } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { paramHeadersFor } from "../../protocol/header-annotations.js";
import { DEFAULT_PREFIX } from "../../redis/client.js";
import { RedisCommands } from "../../redis/commands.js";
import { redisLegacyCluster } from "../../redis/legacy-cluster.js";
import { redisRequestStateKeys } from "../../redis/request-state-keys.js";
import { RedisSubscriptionEventSource } from "../../redis/subscription-events.js";
import type { McpServerBase } from "../../server/mcp-server.js";
import type { ServerMiddleware } from "../../server/middleware-chain.js";
import type { SubscriptionEventSource } from "../../server/subscriptions.js";
import { LEGACY_TASK_METHODS } from "../../server/tasks/legacy-wire.js";
import { TASK_METHODS } from "../../server/tasks/wire.js";
import type { LegacyCluster } from "../../transports/http/legacy/cluster.js";
import type { GatewayRedis } from "./gateway-redis.js";
import { PARKED_CALL_MS } from "./gateway-rounds.js";
import { FORWARDED_HEADER, forwardToPeer, PeerUnreachableError } from "./peer-forward.js";

/** How long a task stays routed to its instance when it names no TTL of its own. */
const DEFAULT_TASK_ROUTE_MS = 24 * 3_600_000;

export interface GatewayCluster {
  /** This instance's origin as the others reach it (--advertise, else where it listens). */
  readonly advertised: string | undefined;
  /** Where it listens, once it does: the advertised origin unless --advertise named one. */
  listening(origin: string): void;
  /** The multi round-trip state key every instance seals and opens with. */
  readonly mrtrSecret: string[];
  /** The legacy options of the endpoint at `path`: its sessions shared through Redis. */
  legacyFor(path: string): { cluster: LegacyCluster };
  /** The upstream's events at `path` (list changes, updates, task status), heard by all. */
  eventsFor(path: string): SubscriptionEventSource;
  /** Resolves once every event bus made so far hears the other instances. */
  ready(): Promise<void>;
  /** Routes what another instance holds there; call before any other middleware is added. */
  apply(server: McpServerBase, path: string): void;
  close(): Promise<void>;
}

/** Joins the instances sharing this Redis and prefix (Redis is connected already). */
export async function joinCluster(
  redis: GatewayRedis,
  advertised: URL | undefined,
  report: (line: string) => void,
): Promise<GatewayCluster> {
  const prefix = redis.prefix ?? DEFAULT_PREFIX;
  const onError = (error: Error) => report(`mcpwire gateway: redis: ${error.message}`);
  const mrtrSecret = await redisRequestStateKeys(redis.client, { prefix, onError });
  const commands = new RedisCommands(redis.client, { prefix: `${prefix}gateway:`, onError });
  let self = advertised?.origin;
  const instanceId = randomBytes(6).toString("base64url");
  const legacy: LegacyCluster[] = [];
  const buses: RedisSubscriptionEventSource[] = [];
  return {
    get advertised() {
      return self;
    },
    listening(origin) {
      self ??= origin;
      report(`mcpwire gateway: one of the instances sharing Redis, reached at ${self}`);
    },
    mrtrSecret,
    legacyFor(path) {
      const cluster = redisLegacyCluster(redis.client, {
        prefix: `${prefix}gateway:${path}:`,
        instanceId,
        onError,
      });
      legacy.push(cluster);
      return { cluster };
    },
    eventsFor(path) {
      const bus = new RedisSubscriptionEventSource(redis.client, {
        prefix: `${prefix}gateway:${path}:`,
        onError,
      });
      buses.push(bus);
      return bus;
    },
    async ready() {
      await Promise.all(buses.map((bus) => bus.ready));
    },
    apply(server, path) {
      server.use(routing(new OwnerRecords(commands), () => self, path, server, report));
    },
    async close() {
      await Promise.all([
        ...legacy.map((cluster) => cluster.close?.()),
        ...buses.map((bus) => bus.close()),
      ]);
    },
  };
}

/** What a request names that one instance holds: a parked call's state, or a task. */
type Held = { kind: "state" | "task"; id: string };

/** Which instance holds what, by its advertised URL, in Redis. */
class OwnerRecords {
  constructor(private readonly commands: RedisCommands) {}

  async ownerOf(held: Held): Promise<string | undefined> {
    const owner = await this.commands.send(["GET", this.key(held)]);
    return typeof owner === "string" ? owner : undefined;
  }

  async claim(held: Held, owner: string, ttlMs: number): Promise<void> {
    await this.commands.send(["SET", this.key(held), owner, "PX", String(Math.ceil(ttlMs))]);
  }

  private key(held: Held): string {
    // A requestState may be long: its digest names it.
    const id = held.kind === "state" ? digest(held.id) : held.id;
    return this.commands.key(`owner:${held.kind}:${id}`);
  }
}

function routing(
  records: OwnerRecords,
  advertised: () => string | undefined,
  path: string,
  server: McpServerBase,
  report: (line: string) => void,
): ServerMiddleware {
  return async (ctx, next) => {
    const self = advertised();
    // Not listening yet: nothing can be held here or anywhere it knows of.
    if (self === undefined) return next();
    const held = heldBy(ctx.method, ctx.params);
    // A forwarded request is served here: its sender read the record that names us.
    if (held !== undefined && ctx.header(FORWARDED_HEADER) === undefined) {
      const owner = await records.ownerOf(held).catch((error: Error) => {
        report(`mcpwire gateway: redis: cannot tell which instance holds it (${error.message})`);
        return undefined;
      });
      if (owner !== undefined && owner !== self) {
        const params =
          ctx.meta !== undefined && ctx.params._meta === undefined
            ? { ...ctx.params, _meta: ctx.meta }
            : ctx.params;
        return forwardToPeer(new URL(path, owner), {
          method: ctx.method,
          params,
          id: ctx.requestId ?? 0,
          header: (name) => ctx.header(name),
          paramHeaders: paramHeaders(server, ctx.method, params),
          signal: ctx.signal,
          from: self,
        }).catch((error: unknown) => {
          // The client hears that its call is out of reach; the operator hears where and why.
          if (error instanceof PeerUnreachableError) {
            report(`mcpwire gateway: cannot forward ${ctx.method} to ${owner}: ${error.detail}`);
          }
          throw error;
        });
      }
    }
    const result = await next();
    const claim = claimOf(result);
    if (claim !== undefined) {
      // Recorded before the client can come back with it.
      await records.claim(claim, self, claim.ttlMs).catch((error: Error) => {
        report(`mcpwire gateway: redis: cannot record where this call waits (${error.message})`);
      });
    }
    return result;
  };
}

function heldBy(method: string, params: JsonObject): Held | undefined {
  if (TASK_METHODS.has(method) || LEGACY_TASK_METHODS.has(method)) {
    return typeof params.taskId === "string" ? { kind: "task", id: params.taskId } : undefined;
  }
  return typeof params.requestState === "string"
    ? { kind: "state", id: params.requestState }
    : undefined;
}

function claimOf(result: JsonObject): (Held & { ttlMs: number }) | undefined {
  if (result.resultType === "input_required" && typeof result.requestState === "string") {
    return { kind: "state", id: result.requestState, ttlMs: PARKED_CALL_MS + 60_000 };
  }
  // A task: flat in the extension's form, under `task` in 2025-11-25's.
  const task = isPlainObject(result.task) ? result.task : result;
  if (result.resultType !== "task" && task === result) return undefined;
  if (typeof task.taskId !== "string") return undefined;
  const ttl = typeof task.ttlMs === "number" ? task.ttlMs : task.ttl;
  const ttlMs = typeof ttl === "number" && ttl > 0 ? ttl + 60_000 : DEFAULT_TASK_ROUTE_MS;
  return { kind: "task", id: task.taskId, ttlMs };
}

/** Mcp-Param-* headers a tools/call carries: the owner checks them as this instance did. */
function paramHeaders(
  server: McpServerBase,
  method: string,
  params: JsonObject,
): Record<string, string> {
  if (method !== "tools/call" || typeof params.name !== "string") return {};
  const tool = server.toolDefinition(params.name);
  return tool === undefined ? {} : paramHeadersFor(tool.inputSchema, params.arguments);
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}
