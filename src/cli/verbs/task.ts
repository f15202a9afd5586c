import { ErrorCode, JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { printableLine } from "../../text/printable.js";
import { INPUT_OPTIONS } from "../connect/input-answers.js";
import { expectArgs, runWithClient, type VerbContext } from "../connect/session.js";
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from "../core/errors.js";
import { printJson, printText, renderCallResult } from "../core/output.js";
import { jsonText } from "../core/terminal.js";

const TASK_USAGE = `Usage: mcpwire task <target> get|cancel|result <task-id> [options]
       mcpwire task <target> list [options]
       mcpwire task get|cancel|result <task-id> [options] -- <command> [args…]

Works with both forms of tasks: the tasks extension (modern servers) and the tasks of the
2025-11-25 revision (legacy servers).
  get      the task's status (and, for the extension, its input requests, result or error)
  cancel   asks the server to stop it; a task that already ended is not cancelled (exit 1)
  result   waits for the task's end and prints the tool's result (2025-11-25 servers; the
           server's questions meanwhile are answered as for call: --elicit, --decline, …)
  list     your tasks (2025-11-25 servers that offer tasks/list)
Tasks live on the server, so this is for HTTP and socket targets. A 2025-11-25 server may keep
an anonymous client's tasks per session: then only the session that made a task sees it.
Options: --era, --header "K: V", --timeout <ms>, --json, --verbose (as for every verb)
`;

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

export function runTask(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, TASK_USAGE, INPUT_OPTIONS, async (context) => {
    const action = context.args[0];
    if (action === "list") {
      expectArgs(context.args, 1, 1, "mcpwire task <target> list");
      return list(context);
    }
    expectArgs(context.args, 2, 2, "mcpwire task <target> get|cancel|result <task-id>");
    const taskId = context.args[1] as string;
    try {
      switch (action) {
        case "get":
          return await show(context, taskId);
        case "cancel":
          return await cancel(context, taskId);
        case "result":
          return await result(context, taskId);
        default:
          throw new UsageError(
            `unknown task action ${JSON.stringify(action)} (get, cancel, result or list)`,
          );
      }
    } catch (error) {
      throw notFoundHint(context, error);
    }
  });
}

async function show(context: VerbContext, taskId: string): Promise<number> {
  const task = await context.client.tasks.get(taskId, context.signal);
  if (context.settings.json) {
    printJson(task);
    return EXIT_OK;
  }
  const lines = [
    `task ${printableLine(String(task.taskId))}: ${printableLine(String(task.status))}`,
  ];
  if (typeof task.statusMessage === "string") lines.push(`  ${printableLine(task.statusMessage)}`);
  lines.push(
    `  created ${printableLine(String(task.createdAt))}, ttlMs ${printableLine(String(task.ttlMs))}`,
  );
  for (const field of ["inputRequests", "result", "error"] as const) {
    if (task[field] !== undefined) lines.push(`  ${field}: ${jsonText(task[field])}`);
  }
  printText(lines.join("\n"));
  return EXIT_OK;
}

/**
 * The extension acknowledges a cancel of a task that already ended and a 2025-11-25 server
 * refuses it (-32602): either way the task is read first, and a task that had ended is
 * reported as such with exit 1, so a script knows nothing was cancelled.
 */
async function cancel(context: VerbContext, taskId: string): Promise<number> {
  const { tasks } = context.client;
  const before = await tasks.get(taskId, context.signal);
  if (TERMINAL.has(String(before.status))) return alreadyEnded(context, before);
  try {
    await tasks.cancel(taskId, context.signal);
  } catch (error) {
    // It ended between the read and the cancel.
    if (!(error instanceof JsonRpcError) || error.code !== ErrorCode.InvalidParams) throw error;
    const now = await tasks.get(taskId, context.signal);
    if (TERMINAL.has(String(now.status))) return alreadyEnded(context, now);
    throw error;
  }
  const after = await tasks.get(taskId, context.signal);
  if (context.settings.json) {
    printJson({ taskId, cancelRequested: true, status: after.status });
    return EXIT_OK;
  }
  const id = printableLine(taskId);
  if (after.status === "cancelled") printText(`task ${id} cancelled`);
  else
    printText(`asked the server to cancel task ${id} (now ${printableLine(String(after.status))})`);
  return EXIT_OK;
}

function alreadyEnded(context: VerbContext, task: JsonObject): number {
  const status = printableLine(String(task.status));
  if (context.settings.json) printJson({ taskId: task.taskId, cancelRequested: false, status });
  throw new CliError(
    `task ${printableLine(String(task.taskId))} had already ended (${status}); nothing to cancel`,
    EXIT_FAILURE,
  );
}

async function result(context: VerbContext, taskId: string): Promise<number> {
  refuseModern(context, "result", "mcpwire task get shows a finished task's result");
  const answer = await context.client.tasks.result(taskId, context.signal);
  if (context.settings.json) printJson(answer);
  else printText(renderCallResult(answer));
  return answer.isError === true ? EXIT_FAILURE : EXIT_OK;
}

async function list(context: VerbContext): Promise<number> {
  refuseModern(context, "list", "the extension has no tasks/list");
  const tasksCapability = context.client.serverCapabilities?.tasks as JsonObject | undefined;
  if (tasksCapability?.list === undefined) {
    throw new CliError("the server does not list tasks (no tasks.list in its capabilities)");
  }
  const tasks: JsonObject[] = [];
  let cursor: string | undefined;
  do {
    const page = await context.client.tasks.list(cursor, context.signal);
    tasks.push(...(page.tasks as JsonObject[]));
    cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
  } while (cursor !== undefined);
  if (context.settings.json) printJson({ tasks });
  else if (tasks.length === 0) printText("no tasks");
  else {
    const line = (task: JsonObject) => {
      const message = typeof task.statusMessage === "string" ? ` ${task.statusMessage}` : "";
      return printableLine(`${task.taskId} ${task.status}${message}`);
    };
    printText(tasks.map(line).join("\n"));
  }
  return EXIT_OK;
}

/** tasks/result and tasks/list are 2025-11-25 methods: a modern server is told why not. */
function refuseModern(context: VerbContext, action: string, instead: string): void {
  if (context.client.era !== "modern") return;
  throw new CliError(
    `task ${action} needs a 2025-11-25 server; this one speaks the tasks extension (${instead})`,
  );
}

/** An unknown task on a legacy server: likely another session's, which it does not show. */
function notFoundHint(context: VerbContext, error: unknown): unknown {
  if (!(error instanceof JsonRpcError) || error.code !== ErrorCode.InvalidParams) return error;
  if (context.client.era !== "legacy") return error;
  return new CliError(`-32602 ${printableLine(error.message)}`, EXIT_FAILURE, [
    "hint: a 2025-11-25 server may keep an anonymous client's tasks per session, and each mcpwire command opens a new one; a server that authenticates you shows your tasks to every session",
  ]);
}
