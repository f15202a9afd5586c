/**
 * One session's shared record as one instance of a cluster keeps it: created after
 * `initialize`, changed by compare-and-set (a change that lost the race is merged into the
 * winner's state and tried again, so no update is lost), announced on the bus so that every
 * other instance's copy follows without reading the store per request, touched now and then.
 */
import type { LegacySnapshot } from "../../../server/connection.js";
import type { ClusterMessage, ClusterSessionRecord, LegacyCluster } from "./cluster.js";

/** What a session's cluster pieces share (one object per handler). */
export interface ClusterContext {
  readonly instanceId: string;
  readonly cluster: LegacyCluster;
  /** Record TTL: the idle timeout. */
  readonly ttlMs: number;
  /** How long an instance that stopped renewing its lease counts as alive (ms). */
  readonly leaseMs: number;
  /** How long a copy serves from memory before it reads the shared record again (ms). */
  readonly recordCheckMs: number;
  /** Resolves once sent (failures are reported, not thrown). */
  publish(message: DistributiveOmit<ClusterMessage, "from">): Promise<void>;
  report(error: Error): void;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const MAX_ATTEMPTS = 8;

export class ClusterSessionState {
  private readonly context: ClusterContext;
  private readonly id: string;
  private readonly principal: string | null;
  /** The record as last written or heard of; undefined until created. */
  private record: ClusterSessionRecord | undefined;
  private chain: Promise<boolean> = Promise.resolve(true);
  private stopped = false;

  constructor(
    context: ClusterContext,
    id: string,
    principal: string | null,
    record?: ClusterSessionRecord,
  ) {
    this.context = context;
    this.id = id;
    this.principal = principal;
    this.record = record;
  }

  /**
   * Writes what changed locally (`local`, the connection's state now); resolves true once it
   * is in the store (false when that failed: reported). `apply` gets the merged state when
   * another instance's change came in meanwhile.
   */
  sync(local: LegacySnapshot, apply: (state: LegacySnapshot) => void): Promise<boolean> {
    this.chain = this.chain.then(() =>
      this.write(local, apply).catch((error: unknown) => {
        this.context.report(error instanceof Error ? error : new Error(String(error)));
        return false;
      }),
    );
    return this.chain;
  }

  /** Resolves when every write so far has landed (true when all did). */
  settled(): Promise<boolean> {
    return this.chain;
  }

  /** Another instance's change; older news than what we have is ignored. */
  heard(state: LegacySnapshot, version: number): boolean {
    if (!this.record || version <= this.record.version) return false;
    this.record = { ...this.record, state, version };
    return true;
  }

  touch(lastUsed: number): void {
    if (this.stopped || !this.record) return;
    const { records } = this.context.cluster;
    records.touch(this.id, lastUsed, this.context.ttlMs).catch(this.context.report);
  }

  /** No more writes (the session ended, or this copy was dropped). */
  stop(): void {
    this.stopped = true;
  }

  private async write(
    local: LegacySnapshot,
    apply: (state: LegacySnapshot) => void,
  ): Promise<boolean> {
    if (this.stopped) return false;
    const { records } = this.context.cluster;
    const { ttlMs } = this.context;
    if (!this.record) {
      const fresh = { id: this.id, principal: this.principal, state: local, lastUsed: Date.now() };
      await records.create(fresh, ttlMs);
      this.record = { ...fresh, version: 1 };
      return true;
    }
    const base = this.record.state;
    let current = this.record;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const state = mergeState(base, local, current.state);
      const next = { ...current, state, lastUsed: Date.now() };
      if (await records.replace(next, ttlMs)) {
        this.record = { ...next, version: next.version + 1 };
        if (!sameState(state, local)) apply(state);
        // Sent before the client hears its change was taken: other copies follow first.
        await this.context.publish({
          kind: "state",
          session: this.id,
          state,
          version: this.record.version,
        });
        return true;
      }
      const loaded = await records.load(this.id);
      if (!loaded) return false; // ended meanwhile
      current = loaded;
    }
    throw new Error(`session ${this.id}: state kept changing under ${MAX_ATTEMPTS} writes`);
  }
}

/**
 * Three-way merge: what this copy changed since `base` (its last known record) applied onto
 * `current` (the record as another instance left it).
 */
function mergeState(
  base: LegacySnapshot,
  local: LegacySnapshot,
  current: LegacySnapshot,
): LegacySnapshot {
  const merged: LegacySnapshot = { ...current, subscriptions: [...current.subscriptions] };
  merged.initialized = current.initialized || local.initialized;
  const level = local.logLevel !== base.logLevel ? local.logLevel : current.logLevel;
  if (level === undefined) delete merged.logLevel;
  else merged.logLevel = level;
  const before = new Set(base.subscriptions);
  const now = new Set(local.subscriptions);
  const subscriptions = new Set(current.subscriptions);
  for (const uri of now) if (!before.has(uri)) subscriptions.add(uri);
  for (const uri of before) if (!now.has(uri)) subscriptions.delete(uri);
  merged.subscriptions = [...subscriptions];
  return merged;
}

function sameState(a: LegacySnapshot, b: LegacySnapshot): boolean {
  if (a.initialized !== b.initialized || a.logLevel !== b.logLevel) return false;
  const mine = new Set(b.subscriptions);
  return a.subscriptions.length === mine.size && a.subscriptions.every((uri) => mine.has(uri));
}
