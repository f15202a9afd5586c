/**
 * One legacy handler's membership in a cluster: its instance id, its lease (renewed while it
 * lives, released when it closes) and its ear on the bus, whose messages go to the session
 * copies this instance holds.
 */
import { unref } from "../../../platform/scheduling.js";
import {
  type ClusterMessage,
  checkInstanceId,
  type LegacyCluster,
  newInstanceId,
} from "./cluster.js";
import type { ClusterContext } from "./cluster-state.js";

const DEFAULT_LEASE_MS = 10_000;
const DEFAULT_RECORD_CHECK_MS = 5_000;

export class ClusterMember {
  readonly context: ClusterContext;
  private readonly cluster: LegacyCluster;
  private readonly leaseMs: number;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly listening: Promise<(() => Promise<void>) | undefined>;

  constructor(
    cluster: LegacyCluster,
    ttlMs: number,
    report: (error: Error) => void,
    onMessage: (message: ClusterMessage) => void,
  ) {
    this.cluster = cluster;
    const instanceId = checkInstanceId(cluster.instanceId ?? newInstanceId());
    this.leaseMs = Math.max(100, cluster.leaseMs ?? DEFAULT_LEASE_MS);
    const reportError = (error: unknown) =>
      report(error instanceof Error ? error : new Error(String(error)));
    this.context = {
      instanceId,
      cluster,
      ttlMs,
      leaseMs: this.leaseMs,
      recordCheckMs: Math.max(0, cluster.recordCheckMs ?? DEFAULT_RECORD_CHECK_MS),
      report: reportError,
      publish: (message) =>
        cluster.bus.publish({ ...message, from: instanceId } as ClusterMessage).catch(reportError),
    };
    this.renew();
    // Renewed three times per lease, so one slow renewal does not make this instance "dead".
    this.heartbeat = setInterval(() => this.renew(), this.leaseMs / 3);
    unref(this.heartbeat);
    this.listening = cluster.bus
      .subscribe((message) => {
        if (message.from !== instanceId) onMessage(message);
      })
      .catch((error: unknown) => {
        reportError(error);
        return undefined;
      });
  }

  get instanceId(): string {
    return this.context.instanceId;
  }

  /** Resolves once this instance hears the bus (tests wait for it before they start). */
  async ready(): Promise<void> {
    await this.listening;
  }

  /** Leaves the cluster: no more lease (its unfinished streams are finished by others), no bus. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    const stop = await this.listening;
    await stop?.().catch(this.context.report);
    await this.cluster.leases.release(this.instanceId).catch(this.context.report);
    await this.cluster.close?.().catch(this.context.report);
  }

  private renew(): void {
    this.cluster.leases.renew(this.instanceId, this.leaseMs).catch(this.context.report);
  }
}
