import {
  type TaskQuota,
  TaskQuotaError,
  type TaskRecord,
  type TaskStore,
  TaskStoreFullError,
} from "../server/tasks/store.js";
import type { RedisClientLike, RedisNamespaceOptions } from "./client.js";
import { RedisCommands, RedisScript } from "./commands.js";

/**
 * Creates the task unless its id exists, the quota owner's set (KEYS[2]) holds `max` unexpired
 * tasks, or the store's set (KEYS[3]) holds its maximum: check and write in one script, so
 * instances creating at once never overshoot. Both sets are scored by expiry (epoch ms, +inf
 * for ttlMs null); expired members leave as the next create looks. The task's key expires
 * with its TTL, each set a second after its last member. ARGV: version, record, TTL ('' for
 * none), now, expiry score, task id, per-owner max (0: no quota), store max.
 */
const CREATE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local function live(set, max)
  redis.call('ZREMRANGEBYSCORE', set, '-inf', ARGV[4])
  return redis.call('ZCARD', set) < tonumber(max)
end
if ARGV[7] ~= '0' and not live(KEYS[2], ARGV[7]) then return -1 end
if not live(KEYS[3], ARGV[8]) then return -2 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
local function add(set)
  redis.call('ZADD', set, ARGV[5], ARGV[6])
  local last = redis.call('ZRANGE', set, -1, -1, 'WITHSCORES')[2]
  if last == 'inf' then redis.call('PERSIST', set)
  else redis.call('PEXPIRE', set, math.max(0, tonumber(last) - tonumber(ARGV[4])) + 1000) end
end
if ARGV[7] ~= '0' then add(KEYS[2]) end
add(KEYS[3])
return 1`);

export interface RedisTaskStoreOptions extends RedisNamespaceOptions {
  /**
   * Most unexpired tasks in the store, all instances and clients together (default 10,000);
   * create() refuses beyond it (TaskStoreFullError) rather than evict a task before its TTL.
   */
  maxTasks?: number;
}

/** Replaces the record only while its version is still the expected one (keeps the TTL). */
const COMPARE_AND_SET = new RedisScript(`
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
return 1`);

/**
 * Tasks in Redis, for servers of one cluster (every instance reads and changes the same
 * tasks): one hash per task (`<prefix>task:<taskId>`: version and JSON record), expiring with
 * the task's TTL (a task with ttlMs null is kept until deleted by hand, and counts against
 * the caps until then); the caps count in `<prefix>tasks:all` and `<prefix>tasks:owner:<key>`. Changes are a Lua
 * compare-and-set on the version, so two instances changing one task never lose an update.
 * The record holds what the task's handler produced (results, errors) in clear: protect the
 * Redis like the data itself.
 */
export class RedisTaskStore implements TaskStore {
  readonly sharedAcrossInstances = true;
  private readonly commands: RedisCommands;
  private readonly maxTasks: number;

  constructor(client: RedisClientLike, options: RedisTaskStoreOptions = {}) {
    this.commands = new RedisCommands(client, options);
    this.maxTasks = Math.max(1, options.maxTasks ?? 10_000);
  }

  async create(record: TaskRecord, quota?: TaskQuota): Promise<void> {
    const ttl = record.ttlMs === null ? "" : String(record.ttlMs);
    const expiry = record.ttlMs === null ? "+inf" : String(record.createdAt + record.ttlMs);
    const made = Number(
      await this.commands.eval(
        CREATE,
        [
          this.key(record.taskId),
          this.commands.key(`tasks:owner:${quota?.owner ?? ""}`),
          this.commands.key("tasks:all"),
        ],
        [
          String(record.version),
          JSON.stringify(record),
          ttl,
          String(record.createdAt),
          expiry,
          record.taskId,
          String(quota?.max ?? 0),
          String(this.maxTasks),
        ],
      ),
    );
    if (made === -1) throw new TaskQuotaError(quota!);
    if (made === -2) {
      throw new TaskStoreFullError(
        `the task store holds its maximum of ${this.maxTasks} tasks`,
        this.maxTasks,
      );
    }
    if (made !== 1) throw new Error(`task ${record.taskId} already exists`);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const json = await this.commands.send(["HGET", this.key(taskId), "r"]);
    if (typeof json !== "string") return undefined;
    return JSON.parse(json) as TaskRecord;
  }

  async listIds(quotaOwner: string): Promise<string[]> {
    const ids = await this.commands.send([
      "ZRANGE",
      this.commands.key(`tasks:owner:${quotaOwner}`),
      "0",
      "-1",
    ]);
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
  }

  async compareAndSet(next: TaskRecord, expectedVersion: number): Promise<boolean> {
    const changed = await this.commands.eval(
      COMPARE_AND_SET,
      [this.key(next.taskId)],
      [String(expectedVersion), String(next.version), JSON.stringify(next)],
    );
    return changed === 1;
  }

  private key(taskId: string): string {
    return this.commands.key(`task:${taskId}`);
  }
}
