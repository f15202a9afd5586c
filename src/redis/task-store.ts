import type { TaskRecord, TaskStore } from "../server/tasks/store.js";
import type { RedisClientLike, RedisNamespaceOptions } from "./client.js";
import { RedisCommands, RedisScript } from "./commands.js";

/** Creates the task unless its id exists; the key expires with the task's TTL. */
const CREATE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`);

/** Replaces the record only while its version is still the expected one (keeps the TTL). */
const COMPARE_AND_SET = new RedisScript(`
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
return 1`);

/**
 * Tasks in Redis, for servers of one cluster (every instance reads and changes the same
 * tasks): one hash per task (`<prefix>task:<taskId>`: version and JSON record), expiring with
 * the task's TTL (a task with ttlMs null is kept until deleted by hand). Changes are a Lua
 * compare-and-set on the version, so two instances changing one task never lose an update.
 * The record holds what the task's handler produced (results, errors) in clear: protect the
 * Redis like the data itself.
 */
export class RedisTaskStore implements TaskStore {
  readonly sharedAcrossInstances = true;
  private readonly commands: RedisCommands;

  constructor(client: RedisClientLike, options: RedisNamespaceOptions = {}) {
    this.commands = new RedisCommands(client, options);
  }

  async create(record: TaskRecord): Promise<void> {
    const ttl = record.ttlMs === null ? "" : String(record.ttlMs);
    const made = await this.commands.eval(
      CREATE,
      [this.key(record.taskId)],
      [String(record.version), JSON.stringify(record), ttl],
    );
    if (made !== 1) throw new Error(`task ${record.taskId} already exists`);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const json = await this.commands.send(["HGET", this.key(taskId), "r"]);
    if (typeof json !== "string") return undefined;
    return JSON.parse(json) as TaskRecord;
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
