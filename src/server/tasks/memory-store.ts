import { unref } from "../../platform/scheduling.js";
import {
  type TaskQuota,
  TaskQuotaError,
  type TaskRecord,
  type TaskStore,
  TaskStoreFullError,
} from "./store.js";

export interface InMemoryTaskStoreOptions {
  /**
   * Most tasks held at once (default 10,000). Expired tasks are dropped first; when every held
   * task is still within its TTL, create() refuses (TaskStoreFullError) rather than break the
   * TTL promised to a client.
   */
  maxTasks?: number;
  /** How often expired tasks are swept while the process runs (default 60 s; 0: only on demand). */
  sweepIntervalMs?: number;
  /** The clock (epoch ms); tests pass a fake one. */
  now?: () => number;
}

/** The default TaskStore: one process, no persistence across restarts. */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();
  /** Per quota owner, the ids of the tasks counted against it; and each such task's owner. */
  private readonly quotaTasks = new Map<string, Set<string>>();
  private readonly quotaOwners = new Map<string, string>();
  private readonly maxTasks: number;
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? 10_000;
    this.now = options.now ?? Date.now;
    const every = options.sweepIntervalMs ?? 60_000;
    if (every > 0) {
      this.sweeper = setInterval(() => this.sweep(), every);
      // A store must never keep a process alive on its own.
      unref(this.sweeper);
    }
  }

  /** Tasks held right now, expired ones not yet swept included (for tests and metrics). */
  get size(): number {
    return this.tasks.size;
  }

  /** Quota owners with tasks counted against them (for tests: emptied as tasks expire). */
  get quotaOwnerCount(): number {
    return this.quotaTasks.size;
  }

  async create(record: TaskRecord, quota?: TaskQuota): Promise<void> {
    if (this.tasks.has(record.taskId)) throw new Error(`task ${record.taskId} already exists`);
    let counted = quota && this.quotaTasks.get(quota.owner);
    if (quota && counted && counted.size >= quota.max) {
      // Only this owner's tasks are looked at: a client at its quota cannot make every
      // refusal walk the whole store.
      for (const taskId of [...counted]) this.current(taskId);
      if (counted.size >= quota.max) throw new TaskQuotaError(quota);
    }
    if (this.tasks.size >= this.maxTasks) this.sweep();
    if (this.tasks.size >= this.maxTasks) {
      throw new TaskStoreFullError(
        `the task store holds its maximum of ${this.maxTasks} tasks`,
        this.maxTasks,
      );
    }
    this.tasks.set(record.taskId, record);
    if (!quota) return;
    counted = this.quotaTasks.get(quota.owner) ?? new Set();
    this.quotaTasks.set(quota.owner, counted);
    counted.add(record.taskId);
    this.quotaOwners.set(record.taskId, quota.owner);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.current(taskId);
  }

  async compareAndSet(next: TaskRecord, expectedVersion: number): Promise<boolean> {
    // Read and write in one synchronous step: an await between them would let two writers
    // both see the old version and the second silently undo the first.
    const current = this.current(next.taskId);
    if (!current || current.version !== expectedVersion) return false;
    this.tasks.set(next.taskId, next);
    return true;
  }

  async listIds(quotaOwner: string): Promise<string[]> {
    return [...(this.quotaTasks.get(quotaOwner) ?? [])];
  }

  /** Drops every task whose TTL has elapsed. */
  sweep(): void {
    const now = this.now();
    for (const [taskId, record] of this.tasks) {
      if (this.expired(record, now)) this.drop(taskId);
    }
  }

  /** Stops the sweep timer (the tasks stay readable). */
  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private current(taskId: string): TaskRecord | undefined {
    const record = this.tasks.get(taskId);
    if (record && this.expired(record, this.now())) {
      this.drop(taskId);
      return undefined;
    }
    return record;
  }

  private drop(taskId: string): void {
    this.tasks.delete(taskId);
    const owner = this.quotaOwners.get(taskId);
    if (owner === undefined) return;
    this.quotaOwners.delete(taskId);
    const counted = this.quotaTasks.get(owner);
    counted?.delete(taskId);
    if (counted?.size === 0) this.quotaTasks.delete(owner);
  }

  /** Expired only once the whole TTL has passed: never a millisecond early. */
  private expired(record: TaskRecord, now: number): boolean {
    return record.ttlMs !== null && now - record.createdAt >= record.ttlMs;
  }
}
