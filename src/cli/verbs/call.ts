import { ErrorCode, isPlainObject, JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { ignoreError } from "../../text/ignored-error.js";
import { printableLine } from "../../text/printable.js";
import { INPUT_OPTIONS, INPUT_USAGE } from "../connect/input-answers.js";
import {
  expectArgs,
  logLine,
  requestOptions,
  runWithClient,
  type VerbContext,
} from "../connect/session.js";
import { CliError, EXIT_FAILURE, EXIT_OK } from "../core/errors.js";
import { printJson, printText, renderCallResult } from "../core/output.js";
import { readArgumentWords, typePairs } from "./tool-arguments.js";

const CALL_USAGE = `Usage: mcpwire call <target> <tool> [json-args] [options]
       mcpwire call <tool> [json-args] [options] -- <command> [args…]

Calls a tool and prints its result; exits 1 when the result has isError. A call the server
turns into a task is followed to its end (its status on stderr; Ctrl-C cancels the task).
  --task      run the tool as a task where it may be one (2025-11-25 servers: taskSupport
              "optional"; "required" tools always are, and modern servers decide themselves)
  --no-wait   when the call becomes a task, print its id and exit (follow it with mcpwire task)
Example: mcpwire call echo '{"text":"hi"}' -- node dist/examples/stdio-server.js
${INPUT_USAGE}`;

const LEGACY_NO_WAIT_HINT =
  "hint: a 2025-11-25 server may show an anonymous client's task only to the session that made it, which ends with this command; mcpwire task follows it where the server authenticates you";

const CALL_OPTIONS = { ...INPUT_OPTIONS, task: "flag", "no-wait": "flag" } as const;

export function runCall(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, CALL_USAGE, CALL_OPTIONS, async (context) => {
    expectArgs(context.args, 1, Number.POSITIVE_INFINITY, "mcpwire call <target> <tool> [args]");
    const [name, ...words] = context.args as [string, ...string[]];
    const given = await readArgumentWords(words, "tool arguments");
    let args: JsonObject | undefined;
    if (given.kind === "json") args = given.value as JsonObject;
    else if (given.kind === "pairs") {
      // The input schema says which words are numbers, booleans or JSON.
      const tool = (await context.client.listAllTools({ signal: context.signal })).find(
        (candidate) => candidate.name === name,
      );
      args = typePairs(given.pairs, tool?.inputSchema, "tool arguments") as JsonObject;
    }
    const noWait = context.options["no-wait"] === true;
    const result = await context.client
      .callTool(name, args, {
        ...requestOptions(context),
        onTaskStatus: context.progress.taskStatus,
        ...(context.options.task === true || noWait ? { task: true } : {}),
        ...(noWait ? { returnTaskHandle: true } : {}),
      })
      .catch(async (error: unknown) => {
        throw (await unknownTool(context, name, error)) ?? error;
      });
    context.progress.done();
    const taskId = noWait ? taskHandleId(result as unknown as JsonObject) : undefined;
    if (taskId !== undefined) {
      if (context.settings.json) printJson(result);
      else printText(`task ${printableLine(taskId)}`);
      // This command's session ends now; a server that keeps tasks per session hides it after.
      if (context.client.era === "legacy") logLine(LEGACY_NO_WAIT_HINT);
      return EXIT_OK;
    }
    if (context.settings.json) printJson(result);
    else printText(renderCallResult(result as unknown as JsonObject));
    return result.isError === true ? EXIT_FAILURE : EXIT_OK;
  });
}

/** The task id of a task handle in either form (flat in the extension, under `task` in 2025-11-25). */
function taskHandleId(result: JsonObject): string | undefined {
  if (result.resultType === "task" && typeof result.taskId === "string") return result.taskId;
  const task = result.task;
  if (isPlainObject(task) && typeof task.taskId === "string") return task.taskId;
  return undefined;
}

/** A refusal (-32602) for a tool the server does not list: name the ones it has. */
async function unknownTool(
  context: VerbContext,
  name: string,
  error: unknown,
): Promise<CliError | undefined> {
  if (!(error instanceof JsonRpcError) || error.code !== ErrorCode.InvalidParams) return undefined;
  const tools = await context.client
    .listAllTools({ signal: context.signal })
    .catch((listing) => ignoreError("listing the tools to name them", listing));
  if (tools === undefined || tools.some((tool) => tool.name === name)) return undefined;
  const names = tools.map((tool) => printableLine(tool.name)).join(", ");
  return new CliError(
    `no tool ${JSON.stringify(printableLine(name))} on the server; ` +
      (names ? `it has: ${names}` : "it has none"),
  );
}
