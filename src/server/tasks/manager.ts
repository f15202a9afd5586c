import {
  InternalError,
  InvalidParamsError,
  isPlainObject,
  JsonRpcError,
  LocalError,
  MissingRequiredClientCapabilityError,
} from "../../jsonrpc/errors.js";
import type { JsonObject, JsonRpcErrorObject } from "../../jsonrpc/types.js";
import { unref } from "../../platform/scheduling.js";
import type { HandlerContext, LegacyConnectionRef } from "../context.js";
import { type InputRequest, validateResponse } from "../mrtr/round.js";
import { AnswerWatch } from "./answer-watch.js";
import { LiveTask } from "./live-task.js";
import { InMemoryTaskStore } from "./memory-store.js";
import { taskOwner, taskQuotaOwner } from "./owner.js";
import type { TaskRecord, TaskRelay, TaskRelayMessage, TaskRunners, TaskStore } from "./store.js";
import { detailedTask } from "./task-view.js";
import { declaresTasks, isTerminal, tasksRequirement } from "./wire.js";

/** Server-wide task settings (McpServerOptions.tasks); a tool may override ttlMs and pollIntervalMs. */
export interface TasksOptions {
  /** Where tasks live. Default: in memory (InMemoryTaskStore). */
  store?: TaskStore;
  /**
   * With a store shared by several instances: carries tasks/update answers and tasks/cancel
   * to the instance running the task (see TaskRelay).
   */
  relay?: TaskRelay;
  /**
   * With a relay: how often a task waiting for input here reads its record for answers another
   * instance accepted (in case the relay lost them), in ms; also how often a legacy
   * tasks/result waiting for the task's end re-reads it. Default 2000.
   */
  answerCheckMs?: number;
  /**
   * With a store shared by several instances: which of them are alive, so that a task whose
   * instance died is marked failed rather than left working (see TaskRunners).
   */
  runners?: TaskRunners;
  /**
   * Most tasks one client may hold at once (default 100), counted from creation until the
   * TTL elapses; beyond it a call that would make a task is refused (-32603 naming the limit).
   * The client is its authenticated principal, else its legacy session, else every anonymous
   * modern client together. The store's own maximum (e.g. InMemoryTaskStoreOptions.maxTasks)
   * caps all clients together.
   */
  maxTasksPerOwner?: number;
  /** How long a task stays readable after it was made, in ms; null for unlimited. Default 1 hour. */
  ttlMs?: number | null;
  /** How often clients should poll tasks/get, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** The clock (epoch ms); tests pass a fake one. */
  now?: () => number;
  /**
   * Runs each task's background work (its tool's handler once the task exists) by calling
   * `run`; by default, just that. mcpwire/otel's `otelTaskRuns()` makes each run a trace of
   * its own, linked to the request that made the task.
   */
  runTask?: TaskRunner;
}

/** What a task's background run is. */
// McpServerOptions.tasks, added to the core's type here, beside TasksOptions.
declare module "../server-core.js" {
  interface McpServerOptions {
    /**
     * The tasks extension (io.modelcontextprotocol/tasks), used by tools registered with
     * `task`: the task store and default ttlMs / pollIntervalMs.
     */
    tasks?: TasksOptions;
  }
}

export interface TaskRunInfo {
  taskId: string;
  /** The tool whose handler runs. */
  tool: string | undefined;
}

export type TaskRunner = (run: () => Promise<JsonObject>, task: TaskRunInfo) => Promise<JsonObject>;

export interface TaskTimes {
  ttlMs: number | null;
  pollIntervalMs: number;
}

const DEFAULT_TTL_MS = 60 * 60 * 1000;
const DEFAULT_POLL_INTERVAL_MS = 1000;
const DEFAULT_MAX_TASKS_PER_OWNER = 100;
const DEFAULT_ANSWER_CHECK_MS = 2000;
/** A compare-and-set that keeps losing means something is wrong, not busy. */
const MAX_CAS_ATTEMPTS = 32;
const EMPTY_ACK: JsonObject = { resultType: "complete" };
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Refuses TasksOptions that make no sense (the tasks extension checks them when made). */
export function checkTasksOptions(options: TasksOptions): void {
  checkTaskTimes(options, "tasks");
  const perOwner = options.maxTasksPerOwner ?? DEFAULT_MAX_TASKS_PER_OWNER;
  if (!(Number.isInteger(perOwner) && perOwner > 0)) {
    throw new Error("tasks: maxTasksPerOwner must be a positive integer");
  }
}

/** Checks a ttlMs / pollIntervalMs given at registration or in options. */
export function checkTaskTimes(
  times: { ttlMs?: unknown; pollIntervalMs?: unknown },
  where: string,
) {
  const { ttlMs, pollIntervalMs } = times;
  if (
    ttlMs !== undefined &&
    ttlMs !== null &&
    !(Number.isInteger(ttlMs) && (ttlMs as number) > 0)
  ) {
    throw new Error(`${where}: ttlMs must be a positive integer (milliseconds) or null`);
  }
  if (
    pollIntervalMs !== undefined &&
    !(Number.isInteger(pollIntervalMs) && (pollIntervalMs as number) > 0)
  ) {
    throw new Error(`${where}: pollIntervalMs must be a positive integer (milliseconds)`);
  }
}

/**
 * The server side of the tasks extension: makes tasks durable before they are announced, keeps
 * the handlers that run in this process, and answers tasks/get, tasks/update and tasks/cancel.
 * Every status change is a compare-and-set on the store, so a cancel racing a completion leaves
 * whichever came first (a completed task stays completed).
 */
export class TaskManager {
  readonly store: TaskStore;
  readonly defaults: TaskTimes;
  readonly maxTasksPerOwner: number;
  private readonly now: () => number;
  private readonly live = new Map<string, LiveTask>();
  private readonly reportError: (error: Error) => void;
  private readonly announce: (record: TaskRecord) => void;
  private readonly relay: TaskRelay | undefined;
  private readonly runners: TaskRunners | undefined;
  private readonly stopRelay: (() => void) | undefined;
  /** With a relay: reads the records of tasks waiting here for answers taken elsewhere. */
  private readonly answers: AnswerWatch | undefined;
  /** Local listeners to one task's changes (legacy tasks/result waits on them). */
  private readonly watchers = new Map<string, Set<(record: TaskRecord) => void>>();
  /** How often a waiting legacy tasks/result re-reads the store (changes made elsewhere, TTL). */
  readonly recheckMs: number;
  /** TasksOptions.runTask. */
  readonly runTask: TaskRunner;

  /** `announce` hears every committed change of a task (for notifications/tasks). */
  constructor(
    options: TasksOptions,
    reportError: (error: Error) => void,
    announce: (record: TaskRecord) => void = () => {},
  ) {
    checkTasksOptions(options);
    this.maxTasksPerOwner = options.maxTasksPerOwner ?? DEFAULT_MAX_TASKS_PER_OWNER;
    this.now = options.now ?? Date.now;
    this.store = options.store ?? new InMemoryTaskStore({ now: this.now });
    this.defaults = {
      ttlMs: options.ttlMs === undefined ? DEFAULT_TTL_MS : options.ttlMs,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    };
    this.reportError = reportError;
    this.announce = announce;
    this.relay = options.relay;
    this.runners = options.runners;
    this.recheckMs = Math.max(1, options.answerCheckMs ?? DEFAULT_ANSWER_CHECK_MS);
    this.runTask = options.runTask ?? ((run) => run());
    this.stopRelay = this.relay?.receive((message) => this.relayed(message));
    if (this.relay) {
      const everyMs = Math.max(1, options.answerCheckMs ?? DEFAULT_ANSWER_CHECK_MS);
      const stop = (taskId: string) => this.stopLive(taskId);
      this.answers = new AnswerWatch(this.store, everyMs, stop, reportError);
    }
  }

  /**
   * Makes a task for `principal` and waits until the store has it (before any reply names it).
   * `legacyConnection`: the session's connection, whom an unauthenticated task counts against.
   */
  async create(
    principal: unknown,
    times: TaskTimes,
    legacyConnection?: LegacyConnectionRef,
    owner: string = taskOwner(principal),
    /** For a task made in the 2025-11-25 form: TaskRecord.legacySession. */
    legacySession?: string,
  ): Promise<TaskRecord> {
    const now = this.now();
    const record: TaskRecord = {
      // 122 random bits: the id is a bearer handle, so it must not be guessable.
      taskId: globalThis.crypto.randomUUID(),
      owner,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: times.ttlMs,
      pollIntervalMs: times.pollIntervalMs,
      version: 1,
      ...(this.runners ? { runner: this.runners.self } : {}),
      ...(legacySession !== undefined ? { legacySession } : {}),
    };
    await this.store.create(record, {
      owner: taskQuotaOwner(principal, legacyConnection),
      max: this.maxTasksPerOwner,
    });
    return record;
  }

  /** Registers the handler that now runs for `record` in this process. */
  attach(record: TaskRecord): LiveTask {
    const live = new LiveTask(record.taskId, (key, request) =>
      this.park(record.taskId, key, request),
    );
    this.live.set(record.taskId, live);
    // Beyond setTimeout's range (~24.8 days) Node would fire at once: no stop timer then.
    if (record.ttlMs !== null && record.ttlMs <= MAX_TIMER_MS) {
      // Once its TTL has passed the task may be gone from the store, and no one can answer or
      // cancel it: a handler still running then is stopped, so nothing lives on unbounded.
      const expiry = setTimeout(() => {
        if (this.live.get(record.taskId) !== live) return;
        this.live.delete(record.taskId);
        live.stop("the task's TTL has elapsed");
      }, record.ttlMs);
      unref(expiry);
      live.controller.signal.addEventListener("abort", () => clearTimeout(expiry), { once: true });
    }
    return live;
  }

  /** How many handlers run here right now (for tests and metrics). */
  get running(): number {
    return this.live.size;
  }

  /** The handler ended: the task completes or fails, unless it already ended (cancelled). */
  async settle(
    live: LiveTask,
    outcome: { result: JsonObject } | { error: unknown },
  ): Promise<void> {
    let ended: Partial<TaskRecord>;
    if ("result" in outcome) {
      ended = { status: "completed", result: outcome.result, statusMessage: undefined };
    } else {
      const error = this.wireError(outcome.error, live);
      ended = { status: "failed", error, statusMessage: `Failed: ${error.message}` };
    }
    this.live.delete(live.taskId);
    live.stop("the task has ended");
    try {
      await this.mutate(live.taskId, (record) =>
        isTerminal(record.status)
          ? undefined
          : { ...ended, inputRequests: undefined, answers: undefined },
      );
    } catch (error) {
      this.reportError(error as Error);
    }
  }

  /** Aborts every task running here and marks it failed (the server is shutting down). */
  async close(): Promise<void> {
    this.stopRelay?.();
    this.answers?.close();
    const running = [...this.live.values()];
    this.live.clear();
    await Promise.all(
      running.map(async (live) => {
        live.stop("the server is shutting down");
        await this.mutate(live.taskId, (record) =>
          isTerminal(record.status)
            ? undefined
            : {
                status: "failed",
                error: { code: -32603, message: "The server shut down before the task finished" },
                inputRequests: undefined,
              },
        ).catch((error) => this.reportError(error as Error));
      }),
    );
    if (this.store instanceof InMemoryTaskStore) this.store.close();
  }

  /** tasks/get, tasks/update, tasks/cancel. */
  async handle(method: string, params: JsonObject, context: HandlerContext): Promise<JsonObject> {
    // "MUST return this error for non-declaring clients issuing tasks/get, tasks/update, and
    // tasks/cancel" (extensions/tasks/tasks.md, Protocol Errors).
    if (!declaresTasks(context.clientCapabilities)) {
      throw new MissingRequiredClientCapabilityError(tasksRequirement());
    }
    const taskId = params.taskId;
    if (typeof taskId !== "string" || taskId === "") {
      throw new InvalidParamsError(`${method} needs a string "taskId"`);
    }
    const record = await this.find(taskId, taskOwner(context.principal));
    switch (method) {
      case "tasks/get":
        return detailedTask(record);
      case "tasks/update":
        await this.update(record, params.inputResponses);
        return { ...EMPTY_ACK };
      default:
        await this.cancel(record);
        return { ...EMPTY_ACK };
    }
  }

  /**
   * The caller's task, or -32602. Unknown, expired and someone else's look the same, so that
   * the answer tells a stranger nothing about other principals' task ids.
   */
  async find(taskId: string, owner: string): Promise<TaskRecord> {
    const record = await this.store.get(taskId);
    if (!record || record.owner !== owner) {
      throw new InvalidParamsError("Task not found (unknown, expired, or not yours)", { taskId });
    }
    return this.orphaned(record);
  }

  /** The record, marked failed first if the instance running its handler is gone. */
  private async orphaned(record: TaskRecord): Promise<TaskRecord> {
    const runner = record.runner;
    if (!this.runners || runner === undefined || runner === this.runners.self) return record;
    if (isTerminal(record.status) || (await this.runners.alive(runner))) return record;
    const failed = await this.mutate(record.taskId, (current) =>
      isTerminal(current.status)
        ? undefined
        : {
            status: "failed",
            error: {
              code: -32603,
              message: "The server instance running this task stopped before it finished",
            },
            statusMessage: "Failed: the server instance running it stopped",
            inputRequests: undefined,
          },
    );
    return failed ?? record;
  }

  /** Accepts answers to outstanding input requests (tasks/update, or a legacy tasks/result round). */
  async update(record: TaskRecord, responses: unknown): Promise<void> {
    if (!isPlainObject(responses)) {
      throw new InvalidParamsError(
        "tasks/update needs inputResponses: an object keyed by input request key",
      );
    }
    // A wrong answer to an outstanding key is refused (as multi round-trip requests do); keys
    // that are not outstanding are ignored (tasks.md, Task Update Requests).
    for (const [key, request] of Object.entries(record.inputRequests ?? {})) {
      if (!(key in responses)) continue;
      const problem = validateResponse(request.method, responses[key]);
      if (problem) throw new InvalidParamsError(`inputResponses.${key}: ${problem}`, { key });
    }
    // Answers for a handler elsewhere are kept in the record too: the relay may lose them.
    const keep = this.relay !== undefined && !this.live.has(record.taskId);
    let accepted: Record<string, JsonObject> = {};
    let kept: Readonly<Record<string, JsonObject>> = {};
    await this.mutate(record.taskId, (current) => {
      accepted = {};
      kept = current.answers ?? {};
      if (current.status !== "input_required") return undefined;
      const remaining: Record<string, InputRequest> = { ...current.inputRequests };
      for (const key of Object.keys(remaining)) {
        if (!(key in responses) || validateResponse(remaining[key]!.method, responses[key])) {
          continue;
        }
        accepted[key] = responses[key] as JsonObject;
        delete remaining[key];
      }
      if (Object.keys(accepted).length === 0) return undefined;
      const answers = keep ? { answers: { ...current.answers, ...accepted } } : {};
      // Partial answers keep the task waiting on the rest.
      return Object.keys(remaining).length > 0
        ? { inputRequests: remaining, ...answers }
        : { status: "working", inputRequests: undefined, statusMessage: undefined, ...answers };
    });
    const live = this.live.get(record.taskId);
    if (live) {
      for (const [key, value] of Object.entries(accepted)) live.answer(key, value);
    } else if (this.relay) {
      // The handler runs in another instance (or none: then nobody listens). A retry of an
      // answer taken before is sent again: the first relay message may have been lost.
      const again = Object.entries(kept).filter(([key]) => key in responses);
      const answers = { ...Object.fromEntries(again), ...accepted };
      if (Object.keys(answers).length > 0) {
        await this.relay.send({ taskId: record.taskId, answers });
      }
    }
  }

  /** Cancels the task unless it ended; resolves with the record as stored afterwards. */
  async cancel(record: TaskRecord): Promise<TaskRecord | undefined> {
    // Idempotent: a task that already ended keeps its status and the client gets the same ack.
    if (isTerminal(record.status)) return record;
    const changed = await this.mutate(record.taskId, (current) =>
      isTerminal(current.status)
        ? undefined
        : {
            status: "cancelled",
            statusMessage: "Cancelled by the client",
            inputRequests: undefined,
          },
    );
    if (changed?.status !== "cancelled") return changed;
    if (this.live.has(record.taskId)) this.stopLive(record.taskId);
    else await this.relay?.send({ taskId: record.taskId, cancel: true });
    return changed;
  }

  /**
   * A legacy tasks/result could not get an answer to input request `key` from the client: the
   * handler's input call fails with `error` (if it waits here) and the request is withdrawn.
   */
  async withdrawInput(taskId: string, key: string, error: Error): Promise<void> {
    this.live.get(taskId)?.fail(key, error);
    await this.mutate(taskId, (current) => {
      if (current.status !== "input_required" || !current.inputRequests?.[key]) return undefined;
      const { [key]: _gone, ...remaining } = current.inputRequests;
      return Object.keys(remaining).length > 0
        ? { inputRequests: remaining }
        : { status: "working", inputRequests: undefined };
    });
  }

  /** Hears every committed change of `taskId` made in this process; returns the unsubscriber. */
  watch(taskId: string, listener: (record: TaskRecord) => void): () => void {
    const listeners = this.watchers.get(taskId) ?? new Set();
    this.watchers.set(taskId, listeners);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.watchers.get(taskId) === listeners) {
        this.watchers.delete(taskId);
      }
    };
  }

  private stopLive(taskId: string): void {
    const live = this.live.get(taskId);
    if (!live) return;
    this.live.delete(taskId);
    live.stop("the client cancelled the task");
  }

  /** Another instance accepted answers for, or cancelled, a task that may run here. */
  private relayed(message: TaskRelayMessage): void {
    const live = this.live.get(message.taskId);
    if (!live) return;
    if ("answers" in message) {
      for (const [key, value] of Object.entries(message.answers)) live.answer(key, value);
      return;
    }
    // Only what the store says: a stray message cannot stop a task that is not cancelled.
    this.store.get(message.taskId).then(
      (record) => {
        if (record?.status === "cancelled") this.stopLive(message.taskId);
      },
      (error: Error) => this.reportError(error),
    );
  }

  /** The handler asks for input: the task shows it under `key` until tasks/update answers. */
  private async park(taskId: string, key: string, request: InputRequest): Promise<void> {
    const changed = await this.mutate(taskId, (current) =>
      isTerminal(current.status)
        ? undefined
        : {
            status: "input_required",
            inputRequests: { ...current.inputRequests, [key]: request },
            statusMessage: undefined,
          },
    );
    if (changed?.status !== "input_required") {
      throw new LocalError("aborted", "the task ended before its input could be asked for");
    }
    const live = this.live.get(taskId);
    if (live) this.answers?.watch(live);
  }

  /**
   * Applies `change` with compare-and-set, re-reading on conflict. Resolves with the record as
   * stored afterwards (unchanged when `change` gave nothing), or undefined when it is gone.
   */
  private async mutate(
    taskId: string,
    change: (record: TaskRecord) => Partial<TaskRecord> | undefined,
  ): Promise<TaskRecord | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = await this.store.get(taskId);
      if (!current) return undefined;
      const changes = change(current);
      if (!changes) return current;
      const next = dropUndefined({
        ...current,
        ...changes,
        lastUpdatedAt: Math.max(this.now(), current.lastUpdatedAt),
        version: current.version + 1,
      });
      if (await this.store.compareAndSet(next, current.version)) {
        // Announced only once stored, in commit order: a listener never hears a state that a
        // losing compare-and-set would have taken back.
        this.announce(next);
        const listeners = this.watchers.get(taskId);
        if (listeners) for (const listener of [...listeners]) listener(next);
        return next;
      }
    }
    throw new InternalError(`task ${taskId}: too many conflicting updates`);
  }

  private wireError(error: unknown, live: LiveTask): JsonRpcErrorObject {
    if (error instanceof JsonRpcError) return error.toJSON();
    const message = error instanceof Error ? error.message : String(error);
    if (!live.controller.signal.aborted && !(error instanceof LocalError)) {
      this.reportError(new Error(`task ${live.taskId} failed: ${message}`, { cause: error }));
    }
    return new InternalError(message || "Internal error").toJSON();
  }
}

/** Stores hold plain JSON: a field set to undefined is a field removed. */
function dropUndefined(record: TaskRecord): TaskRecord {
  const copy = { ...record } as Record<string, unknown>;
  for (const key of Object.keys(copy)) if (copy[key] === undefined) delete copy[key];
  return copy as unknown as TaskRecord;
}
