import { InvalidParamsError, JsonRpcError, LocalError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { ignoring } from "../../text/ignored-error.js";
import { type HandlerContext, legacyConnectionOf } from "../context.js";
import { paginate } from "../registry.js";
import { legacyTask, legacyTaskOwner, RELATED_TASK } from "./legacy-wire.js";
import type { TaskManager } from "./manager.js";
import { taskQuotaOwner } from "./owner.js";
import type { TaskRecord } from "./store.js";
import { isTerminal } from "./wire.js";

/**
 * tasks/get, tasks/result, tasks/list and tasks/cancel of the 2025-11-25 revision, over the
 * same TaskManager (store, quotas, runners, relay) as the extension. Input a task's handler
 * asks for is parked in the record as for the extension; a legacy client has no tasks/update,
 * so a waiting tasks/result sends each outstanding request to the client itself (on its own
 * stream) and hands the answer to the task (tasks.mdx, Input Required Status).
 */
export class LegacyTasks {
  /** Input request keys a tasks/result here is asking the client right now, by task id. */
  private readonly asking = new Map<string, Set<string>>();

  constructor(
    private readonly manager: TaskManager,
    private readonly pageSize: number | undefined,
  ) {}

  async handle(method: string, params: JsonObject, context: HandlerContext): Promise<JsonObject> {
    const owner = legacyTaskOwner(context.principal, legacyConnectionOf(context));
    if (method === "tasks/list") return this.list(owner, params, context);
    const taskId = params.taskId;
    if (typeof taskId !== "string" || taskId === "") {
      throw new InvalidParamsError(`${method} needs a string "taskId"`);
    }
    const record = await this.manager.find(taskId, owner);
    switch (method) {
      case "tasks/get":
        return legacyTask(record);
      case "tasks/result":
        return this.result(record, owner, context);
      default:
        return this.cancel(record);
    }
  }

  private async list(
    owner: string,
    params: JsonObject,
    context: HandlerContext,
  ): Promise<JsonObject> {
    const { store } = this.manager;
    if (!store.listIds) throw new JsonRpcError(-32601, "Method not found: tasks/list");
    const quotaOwner = taskQuotaOwner(context.principal, legacyConnectionOf(context));
    const records = await Promise.all((await store.listIds(quotaOwner)).map((id) => store.get(id)));
    const mine = records
      .filter((record): record is TaskRecord => record?.owner === owner)
      .sort((a, b) => a.createdAt - b.createdAt || a.taskId.localeCompare(b.taskId));
    const { page, nextCursor } = paginate(mine, params.cursor, this.pageSize);
    const result: JsonObject = { tasks: page.map(legacyTask) };
    if (nextCursor !== undefined) result.nextCursor = nextCursor;
    return result;
  }

  /** "MUST reject cancellation requests for tasks already in a terminal status" with -32602. */
  private async cancel(record: TaskRecord): Promise<JsonObject> {
    if (isTerminal(record.status)) throw alreadyEnded(record);
    const after = await this.manager.cancel(record);
    if (!after) throw new InvalidParamsError("Task not found (unknown, expired, or not yours)");
    if (after.status !== "cancelled") throw alreadyEnded(after);
    return legacyTask(after);
  }

  /** Blocks until the task ends, asking the client for what the task waits on meanwhile. */
  private async result(
    record: TaskRecord,
    owner: string,
    context: HandlerContext,
  ): Promise<JsonObject> {
    const { signal } = context;
    let current = record;
    while (!isTerminal(current.status)) {
      if (current.status === "input_required") this.askClient(current, context);
      await this.changed(current, signal);
      current = await this.manager.find(record.taskId, owner);
    }
    const meta = { [RELATED_TASK]: { taskId: current.taskId } };
    if (current.status === "completed") {
      const result = current.result ?? {};
      return { ...result, _meta: { ...(result._meta as JsonObject | undefined), ...meta } };
    }
    const error =
      current.status === "failed"
        ? (current.error ?? { code: -32603, message: "Internal error" })
        : { code: -32603, message: "The task was cancelled before it finished" };
    throw new JsonRpcError(error.code, error.message, {
      ...(isObject(error.data) ? error.data : {}),
      ...meta,
    });
  }

  /** Sends each outstanding input request of the task to the client, once per key here. */
  private askClient(record: TaskRecord, context: HandlerContext): void {
    let asking = this.asking.get(record.taskId);
    for (const [key, request] of Object.entries(record.inputRequests ?? {})) {
      if (asking?.has(key)) continue;
      if (!asking) {
        asking = new Set();
        this.asking.set(record.taskId, asking);
      }
      asking.add(key);
      const params: JsonObject = {
        ...request.params,
        _meta: {
          ...(request.params?._meta as JsonObject | undefined),
          [RELATED_TASK]: { taskId: record.taskId },
        },
      };
      const done = () => {
        asking?.delete(key);
        if (asking?.size === 0 && this.asking.get(record.taskId) === asking) {
          this.asking.delete(record.taskId);
        }
      };
      const asked = context.input({ [key]: { method: request.method, params } }).then((answers) => {
        const answer = answers[key];
        if (!answer) throw new LocalError("aborted", "the client cannot answer this request");
        return answer;
      });
      asked
        .then(
          async (answer) => {
            try {
              await this.manager.update(record, { [key]: answer });
            } catch (error) {
              await this.manager.withdrawInput(record.taskId, key, error as Error);
            } finally {
              done();
            }
          },
          async (error: Error) => {
            done();
            // The tasks/result itself ended (cancelled, connection gone): the request stays
            // outstanding for the next tasks/result. A refusal by the client goes to the handler.
            if (context.signal.aborted) return;
            await this.manager.withdrawInput(record.taskId, key, error);
          },
        )
        .catch(ignoring("passing a task's input request on"));
    }
  }

  /** Resolves on the task's next change here, after recheckMs (changes elsewhere, expiry), or throws on abort. */
  private changed(record: TaskRecord, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const finish = () => {
        stop();
        clearTimeout(timer);
        signal.removeEventListener("abort", aborted);
      };
      const aborted = () => {
        finish();
        reject(
          signal.reason instanceof Error
            ? signal.reason
            : new LocalError("aborted", "tasks/result aborted"),
        );
      };
      const stop = this.manager.watch(record.taskId, (next) => {
        if (next.version === record.version) return;
        finish();
        resolve();
      });
      const timer = setTimeout(() => {
        finish();
        resolve();
      }, this.manager.recheckMs);
      if (signal.aborted) {
        aborted();
        return;
      }
      signal.addEventListener("abort", aborted, { once: true });
      // A change committed between the caller's read and the watch above would be missed.
      this.manager.store.get(record.taskId).then(
        (now) => {
          if (now?.version === record.version) return;
          finish();
          resolve();
        },
        (error: Error) => {
          finish();
          reject(error);
        },
      );
    });
  }
}

function alreadyEnded(record: TaskRecord): InvalidParamsError {
  // The status as this form shows it (a tool error is "failed" here).
  const status = legacyTask(record).status as string;
  return new InvalidParamsError(`Cannot cancel a task that is already ${status}`, {
    taskId: record.taskId,
    status,
  });
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
