import type { JsonObject, JsonRpcErrorObject } from "../../jsonrpc/types.js";
import type { InputRequest } from "../mrtr/round.js";
import type { TaskStatus } from "./wire.js";

/** A task as a store keeps it: plain JSON, so a shared store (Redis) can hold it as is. */
export interface TaskRecord {
  /** Unguessable (it is a bearer handle to the task's state). */
  readonly taskId: string;
  /** Whose task it is (see taskOwner): another principal must not see it. */
  readonly owner: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** From creation; null for unlimited. A store must keep the task at least this long. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** Outstanding server-to-client requests by key (input_required only). */
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
  /** The tool's result (completed only). */
  readonly result?: JsonObject;
  /** The JSON-RPC error the call ended with (failed only). */
  readonly error?: JsonRpcErrorObject;
  /** Bumped by every change; what compare-and-set compares. */
  readonly version: number;
}

/**
 * Where tasks live. Async throughout so that a shared store (Redis, a database) fits without
 * touching handlers; the in-memory one is the default. Implementations must never hand back a
 * task whose TTL has not elapsed as missing, and may drop it any time after.
 */
export interface TaskStore {
  /** Stores a new task; resolves only once a get() anywhere would find it (durable). */
  create(record: TaskRecord): Promise<void>;
  /** The task, or undefined when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Replaces the task with `next` (whose version is expectedVersion + 1) only if the stored
   * version is still `expectedVersion`; false when it changed meanwhile, or the task is gone.
   */
  compareAndSet(next: TaskRecord, expectedVersion: number): Promise<boolean>;
}

/** Thrown by create() when the store holds all the tasks it may. */
export class TaskStoreFullError extends Error {
  override name = "TaskStoreFullError";
}
