/**
 * The tasks extension (io.modelcontextprotocol/tasks) through the gateway. The child makes and
 * runs the tasks; the gateway relays tools/call's CreateTaskResult, tasks/get, tasks/update,
 * tasks/cancel and (via gateway-subscriptions.ts) notifications/tasks. What it adds is the
 * owner check: every HTTP client reaches the child as the gateway, one principal, so the child
 * cannot tell whose a task is. The gateway remembers who made each task it relayed and answers
 * a task request from anyone else as the child answers an unknown id ("MUST perform
 * authentication and authorization checks on each task-related request", tasks.md, Security).
 */
import { InvalidParamsError, MissingRequiredClientCapabilityError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { ClientCapabilities } from "../../protocol/mcp-types.js";
import { taskOwner } from "../../server/tasks/owner.js";
import { declaresTasks, tasksRequirement } from "../../server/tasks/wire.js";

/** Tasks whose owner the gateway remembers at once; the oldest is forgotten beyond this. */
export const MAX_RELAYED_TASKS = 10_000;

interface Relayed {
  /** taskOwner() of the principal whose call made it. */
  owner: string;
  /** When the task's TTL ends (epoch ms); the child may drop it then. */
  expiresAt: number;
}

export class RelayedTasks {
  private readonly tasks = new Map<string, Relayed>();
  private readonly limit: number;
  private readonly now: () => number;

  constructor(limit = MAX_RELAYED_TASKS, now: () => number = Date.now) {
    this.limit = limit;
    this.now = now;
  }

  get size(): number {
    return this.tasks.size;
  }

  /** The child answered `principal`'s call with this CreateTaskResult. */
  created(result: JsonObject, principal: unknown): void {
    const taskId = result.taskId;
    if (typeof taskId !== "string" || taskId === "") return;
    if (this.tasks.size >= this.limit && !this.tasks.has(taskId)) {
      this.tasks.delete(this.tasks.keys().next().value!);
    }
    const ttlMs = result.ttlMs;
    const expiresAt =
      typeof ttlMs === "number" && ttlMs >= 0 ? this.now() + ttlMs : Number.POSITIVE_INFINITY;
    this.tasks.set(taskId, { owner: taskOwner(principal), expiresAt });
  }

  /** The owner key of a task relayed here and not yet expired. */
  ownerOf(taskId: string): string | undefined {
    const entry = this.tasks.get(taskId);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.tasks.delete(taskId);
      return undefined;
    }
    return entry.owner;
  }

  /**
   * Checks a tasks/get, tasks/update or tasks/cancel before it goes to the child, in the
   * order a server of the extension does: -32021 for a client that did not declare it, then
   * -32602 for a task that is unknown here, expired, or someone else's (all alike).
   */
  check(
    method: string,
    params: JsonObject,
    declared: ClientCapabilities,
    principal: unknown,
  ): void {
    if (!declaresTasks(declared)) {
      throw new MissingRequiredClientCapabilityError(tasksRequirement());
    }
    const taskId = params.taskId;
    if (typeof taskId !== "string" || taskId === "") {
      throw new InvalidParamsError(`${method} needs a string "taskId"`);
    }
    if (this.ownerOf(taskId) !== taskOwner(principal)) {
      throw new InvalidParamsError("Task not found (unknown, expired, or not yours)", { taskId });
    }
  }
}
