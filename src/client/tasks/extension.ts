import { isPlainObject } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { signalOf } from "../../protocol/outgoing.js";
import type { OutgoingCall, PreparedCall } from "../call-hooks.js";
import type { ClientExtension, McpClientBase } from "../mcp-client.js";
import { awaitTask, ClientTasks, TASKS_EXTENSION, TaskCancelledError } from "./client-tasks.js";
import { awaitLegacyTask, takesLegacyToolTasks, taskSupportOf } from "./legacy.js";

/** Enough for any real server; a hostile one cannot keep the first call listing forever. */
const MAX_TOOL_PAGES = 100;

/** A legacy tools/call that goes as a 2025-11-25 task: its `task` parameter is set. */
interface LegacyTaskCall extends PreparedCall {
  readonly params: JsonObject;
  readonly detached: true;
}

/**
 * The client side of the tasks extension (extensions/tasks/tasks.md) and of 2025-11-25 tasks:
 * declares the extension on modern requests, sends a legacy tools/call as a task where the
 * tool asks for one, and carries a call answered with a task to the tool's result (unless
 * CallOptions.returnTaskHandle). McpClient (mcpwire/client) installs one.
 */
export class ClientTasksExtension implements ClientExtension {
  readonly id = TASKS_EXTENSION;
  /** tasks/get, tasks/update, tasks/cancel (and a legacy server's tasks/result, tasks/list). */
  readonly tasks: ClientTasks;
  readonly calls = { prepare: this.prepare.bind(this), finish: this.finish.bind(this) };
  private readonly declared: boolean;
  private client: McpClientBase | undefined;
  /** Per legacy handshake (its capabilities object), each tool's execution.taskSupport. */
  private readonly legacySupports = new WeakMap<object, Promise<Map<string, string>>>();

  /** `declared`: whether modern requests declare the extension (McpClientOptions.tasks). */
  constructor(declared: boolean) {
    this.declared = declared;
    this.tasks = new ClientTasks(
      (method, params, signal) => this.host().request(method, params, signal ? { signal } : {}),
      () => this.client?.era === "legacy",
    );
  }

  /** Modern requests only: the extension belongs to 2026-07-28; 2025-11-25 has its own tasks. */
  readonly capability = (era: "modern" | "legacy"): JsonObject | undefined =>
    era === "modern" && this.declared ? {} : undefined;

  setup(client: McpClientBase): void {
    this.client = client;
  }

  private prepare(call: OutgoingCall): Promise<LegacyTaskCall | undefined> | undefined {
    if (call.era !== "legacy" || call.method !== "tools/call") return undefined;
    if (!takesLegacyToolTasks(call.serverCapabilities as JsonObject)) return undefined;
    return this.legacyTaskCall(call);
  }

  /**
   * A legacy tools/call goes as a task when the tool requires it, or allows it and the caller
   * asked. 2025-11-25 cancellation.mdx: a task-augmented request is cancelled with tasks/cancel,
   * never notifications/cancelled; so it goes detached, and an abort meanwhile cancels the task
   * once it exists (finish).
   */
  private async legacyTaskCall(call: OutgoingCall): Promise<LegacyTaskCall | undefined> {
    const name = call.params?.name;
    if (typeof name !== "string") return undefined;
    const supports = await this.legacyToolSupport(call.serverCapabilities);
    const support = supports.get(name) ?? "forbidden";
    const asked = call.options.task;
    if (support === "forbidden" || (support === "optional" && !asked)) return undefined;
    const ttlMs = typeof asked === "object" ? asked.ttlMs : undefined;
    const task = ttlMs === undefined ? {} : { ttl: ttlMs };
    return { params: { ...call.params, task }, detached: true };
  }

  private finish(result: JsonObject, call: OutgoingCall, prepared: PreparedCall | undefined) {
    const { options } = call;
    const origin = options.origin === undefined ? {} : { origin: options.origin };
    if (prepared?.detached && isPlainObject(result.task)) {
      const aborted = options.signal?.aborted === true || options.abort?.aborted === true;
      if (options.returnTaskHandle && !aborted) return { result, asIs: true };
      return awaitLegacyTask(
        result,
        (method, params, signal) => this.host().request(method, params, { signal, ...origin }),
        { signal: signalOf(options), onStatus: options.onTaskStatus },
        (taskId) => new TaskCancelledError(taskId),
      ).then((end) => ({ result: end }));
    }
    if (result.resultType !== "task" || call.method !== "tools/call") return undefined;
    if (options.returnTaskHandle) return { result, asIs: true };
    return awaitTask(result, this.tasks, {
      handlers: call.handlers,
      signal: signalOf(options),
      origin: options.origin,
      onStatus: options.onTaskStatus,
    }).then((end) => ({ result: end }));
  }

  /** Each tool's execution.taskSupport on this legacy session (tools/list, read once). */
  private legacyToolSupport(handshake: object): Promise<Map<string, string>> {
    let known = this.legacySupports.get(handshake);
    if (!known) {
      known = this.listToolSupport();
      this.legacySupports.set(handshake, known);
      // A failed listing is asked again on the next call.
      known.catch(() => this.legacySupports.delete(handshake));
    }
    return known;
  }

  private async listToolSupport(): Promise<Map<string, string>> {
    const known = new Map<string, string>();
    let cursor: unknown;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await this.host().request(
        "tools/list",
        cursor === undefined ? {} : { cursor },
      );
      const tools = Array.isArray(listed.tools) ? listed.tools : [];
      for (const tool of tools) {
        if (isPlainObject(tool) && typeof tool.name === "string") {
          known.set(tool.name, taskSupportOf(tool));
        }
      }
      cursor = listed.nextCursor;
      if (typeof cursor !== "string") break;
    }
    return known;
  }

  private host(): McpClientBase {
    if (!this.client) throw new Error("the tasks extension is not installed on a client");
    return this.client;
  }
}
