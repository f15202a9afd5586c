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
  /**
   * Answers accepted by an instance other than the one running the handler, by input request
   * key, kept until the task ends: the relay message carrying them may be lost, and the
   * running instance reads them here (TasksOptions.answerCheckMs). Never shown to clients.
   */
  readonly answers?: Readonly<Record<string, JsonObject>>;
  /** The tool's result (completed only). */
  readonly result?: JsonObject;
  /** The JSON-RPC error the call ended with (failed only). */
  readonly error?: JsonRpcErrorObject;
  /** Bumped by every change; what compare-and-set compares. */
  readonly version: number;
  /** The instance whose process runs the handler (set when TasksOptions.runners is given). */
  readonly runner?: string;
  /**
   * The 2025-11-25 session that made the task (its legacySessionKey), whom
   * notifications/tasks/status go to; absent for tasks made in the extension's form.
   */
  readonly legacySession?: string;
}

/**
 * Where tasks live. Async throughout so that a shared store (Redis, a database) fits without
 * touching handlers; the in-memory one is the default. Implementations must never hand back a
 * task whose TTL has not elapsed as missing, and may drop it any time after.
 */
export interface TaskStore {
  /**
   * Stores a new task; resolves only once a get() anywhere would find it (durable). Refuses
   * with TaskStoreFullError when the store holds its maximum of tasks, and with TaskQuotaError
   * when `quota.owner` already holds `quota.max` tasks whose TTL has not elapsed; check and
   * write are one atomic step, so concurrent creates (on several instances) never overshoot.
   */
  create(record: TaskRecord, quota?: TaskQuota): Promise<void>;
  /** The task, or undefined when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Replaces the task with `next` (whose version is expectedVersion + 1) only if the stored
   * version is still `expectedVersion`; false when it changed meanwhile, or the task is gone.
   */
  compareAndSet(next: TaskRecord, expectedVersion: number): Promise<boolean>;
  /**
   * Optional: the ids of the tasks counted against quota owner `quotaOwner` (TaskQuota.owner),
   * expired ones possibly included (get() then finds none). Needed for legacy tasks/list.
   */
  listIds?(quotaOwner: string): Promise<string[]>;
  /** True for a store several server processes share (see checkClusterSecret). */
  readonly sharedAcrossInstances?: boolean;
}

/**
 * For a store shared by several instances: which of them are still running. A task whose
 * handler ran in an instance that is gone can never finish; the first tasks/get, update or
 * cancel that finds it so marks it failed instead of leaving it working until its TTL.
 */
export interface TaskRunners {
  /** This instance's id, recorded on the tasks whose handlers run here. */
  readonly self: string;
  /** Whether the instance `runner` is still alive (e.g. its lease is current). */
  alive(runner: string): Promise<boolean>;
}

/** What one instance tells the one running a task's handler (see TaskRelay). */
export type TaskRelayMessage =
  /** tasks/update answers, already accepted and stored, by input request key. */
  | { taskId: string; answers: Record<string, JsonObject> }
  /** tasks/cancel: the store says cancelled; the handler should stop. */
  | { taskId: string; cancel: true };

/**
 * For a store shared by several instances: a task's handler runs only in the process that
 * created it, so a tasks/update or tasks/cancel that another instance answers must reach it.
 * The store is changed first (compare-and-set, as in one process); the relay then carries the
 * accepted answers or the cancel to every instance, and the one running the task acts on it.
 * Delivery may be at most once: answers are also kept in the record (TaskRecord.answers), which
 * the running instance reads while its handler waits (TasksOptions.answerCheckMs), and a retried
 * tasks/update sends them again; a cancel is seen by that read too while the handler waits for
 * input, otherwise a lost cancel lets the handler run on (its result is discarded, the task
 * stays cancelled).
 */
export interface TaskRelay {
  send(message: TaskRelayMessage): Promise<void>;
  /** Hears what other instances send; returns the function that stops hearing. */
  receive(handler: (message: TaskRelayMessage) => void): () => void;
}

/**
 * How many tasks one client may hold at once (TasksOptions.maxTasksPerOwner): a task counts
 * from creation until its TTL elapses, finished or not, since its result is held that long.
 */
export interface TaskQuota {
  /** Whom the task counts against (taskQuotaOwner: principal, else legacy session, else everyone anonymous). */
  readonly owner: string;
  readonly max: number;
}

/** Thrown by create() when the store holds all the tasks it may. */
export class TaskStoreFullError extends Error {
  override name = "TaskStoreFullError";
  constructor(
    message: string,
    /** The store's maximum. */
    readonly limit?: number,
  ) {
    super(message);
  }
}

/** Thrown by create() when the task's quota owner already holds its maximum. */
export class TaskQuotaError extends TaskStoreFullError {
  override name = "TaskQuotaError";
  constructor(readonly quota: TaskQuota) {
    super(`this client already holds its maximum of ${quota.max} unexpired tasks`, quota.max);
  }
}
