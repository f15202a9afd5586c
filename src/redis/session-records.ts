/**
 * Legacy session records in Redis: one hash per session (principal, state, lastUsed, version)
 * and one hash of its request streams, both expiring after the idle timeout unless used.
 * Compare-and-set and "only while it exists" are Lua scripts, so each is one atomic round trip.
 */
import type {
  ClusterRecordStore,
  ClusterSessionRecord,
} from "../transports/http/legacy/cluster.js";
import type { StreamRecord } from "../transports/http/legacy/session-records.js";
import { type RedisCommands, RedisScript } from "./commands.js";

const CREATE = new RedisScript(`
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], 'principal', ARGV[1], 'state', ARGV[2], 'lastUsed', ARGV[3], 'version', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`);

const REPLACE = new RedisScript(`
local version = redis.call('HGET', KEYS[1], 'version')
if not version or tonumber(version) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'lastUsed', ARGV[3], 'version', tonumber(ARGV[1]) + 1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
return 1`);

const TOUCH = new RedisScript(`
local last = redis.call('HGET', KEYS[1], 'lastUsed')
if not last then return 0 end
if tonumber(ARGV[1]) > tonumber(last) then redis.call('HSET', KEYS[1], 'lastUsed', ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1`);

const SET_STREAM = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], math.max(tonumber(ARGV[3]), redis.call('PTTL', KEYS[1])))
return 1`);

export class RedisSessionRecords implements ClusterRecordStore {
  private readonly commands: RedisCommands;

  constructor(commands: RedisCommands) {
    this.commands = commands;
  }

  async create(record: Omit<ClusterSessionRecord, "version">, ttlMs: number): Promise<void> {
    await this.commands.eval(CREATE, this.keys(record.id), [
      JSON.stringify(record.principal),
      JSON.stringify(record.state),
      String(record.lastUsed),
      String(Math.ceil(ttlMs)),
    ]);
  }

  async load(id: string): Promise<ClusterSessionRecord | undefined> {
    const [key] = this.keys(id);
    const fields = await this.commands.send([
      "HMGET",
      key,
      "principal",
      "state",
      "lastUsed",
      "version",
    ]);
    if (!Array.isArray(fields) || fields.some((field) => typeof field !== "string"))
      return undefined;
    const [principal, state, lastUsed, version] = fields as string[];
    return {
      id,
      principal: JSON.parse(principal!),
      state: JSON.parse(state!),
      lastUsed: Number(lastUsed),
      version: Number(version),
    };
  }

  async replace(record: ClusterSessionRecord, ttlMs: number): Promise<boolean> {
    const done = await this.commands.eval(REPLACE, this.keys(record.id), [
      String(record.version),
      JSON.stringify(record.state),
      String(record.lastUsed),
      String(Math.ceil(ttlMs)),
    ]);
    return Number(done) === 1;
  }

  async touch(id: string, lastUsed: number, ttlMs: number): Promise<void> {
    await this.commands.eval(TOUCH, this.keys(id), [String(lastUsed), String(Math.ceil(ttlMs))]);
  }

  async delete(id: string): Promise<void> {
    await this.commands.send(["DEL", ...this.keys(id)]);
  }

  async setStream(sessionId: string, stream: StreamRecord, ttlMs: number): Promise<void> {
    await this.commands.eval(SET_STREAM, this.keys(sessionId), [
      stream.id,
      JSON.stringify(stream.requestId ?? null),
      String(Math.ceil(ttlMs)),
    ]);
  }

  async stream(sessionId: string, streamId: string): Promise<StreamRecord | undefined> {
    const [, streams] = this.keys(sessionId);
    const requestId = await this.commands.send(["HGET", streams, streamId]);
    if (typeof requestId !== "string") return undefined;
    const parsed = JSON.parse(requestId);
    return parsed === null ? { id: streamId } : { id: streamId, requestId: parsed };
  }

  /** The record's hash and its streams' hash. */
  private keys(id: string): [string, string] {
    return [this.commands.key(`legacy:session:${id}`), this.commands.key(`legacy:streams:${id}`)];
  }
}
