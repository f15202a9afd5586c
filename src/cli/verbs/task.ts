import { printableLine } from "../../text/printable.js";
import { expectArgs, runWithClient } from "../connect/session.js";
import { EXIT_OK, UsageError } from "../core/errors.js";
import { printJson, printText } from "../core/output.js";
import { jsonText } from "../core/terminal.js";

export const TASK_USAGE = `Usage: mcpwire task <target> get|cancel <task-id> [options]
       mcpwire task get|cancel <task-id> [options] -- <command> [args…]

Shows a task (the tasks extension: status, and its input requests, result or error) or asks
the server to cancel it. Tasks live on the server, so this is for HTTP and socket targets.
Options: --era, --header "K: V", --timeout <ms>, --json, --verbose (as for every verb)
`;

export function runTask(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, TASK_USAGE, {}, async (context) => {
    expectArgs(context.args, 2, 2, "mcpwire task <target> get|cancel <task-id>");
    const [action, taskId] = context.args as [string, string];
    if (action === "cancel") {
      await context.client.tasks.cancel(taskId, context.signal);
      if (context.settings.json) printJson({ taskId, cancelRequested: true });
      else printText(`asked the server to cancel task ${printableLine(taskId)}`);
      return EXIT_OK;
    }
    if (action !== "get")
      throw new UsageError(`unknown task action ${JSON.stringify(action)} (get or cancel)`);
    const task = await context.client.tasks.get(taskId, context.signal);
    if (context.settings.json) {
      printJson(task);
      return EXIT_OK;
    }
    const lines = [
      `task ${printableLine(String(task.taskId))}: ${printableLine(String(task.status))}`,
    ];
    if (typeof task.statusMessage === "string")
      lines.push(`  ${printableLine(task.statusMessage)}`);
    lines.push(
      `  created ${printableLine(String(task.createdAt))}, ttlMs ${printableLine(String(task.ttlMs))}`,
    );
    for (const field of ["inputRequests", "result", "error"] as const) {
      if (task[field] !== undefined) lines.push(`  ${field}: ${jsonText(task[field])}`);
    }
    printText(lines.join("\n"));
    return EXIT_OK;
  });
}
