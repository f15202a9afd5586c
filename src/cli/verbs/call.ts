import { ErrorCode, JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { ignoreError } from "../../text/ignored-error.js";
import { printableLine } from "../../text/printable.js";
import { INPUT_OPTIONS, INPUT_USAGE } from "../connect/input-answers.js";
import { expectArgs, requestOptions, runWithClient, type VerbContext } from "../connect/session.js";
import { CliError, EXIT_FAILURE, EXIT_OK } from "../core/errors.js";
import { printJson, printText, renderCallResult } from "../core/output.js";
import { readArgumentWords, typePairs } from "./tool-arguments.js";

export const CALL_USAGE = `Usage: mcpwire call <target> <tool> [json-args] [options]
       mcpwire call <tool> [json-args] [options] -- <command> [args…]

Calls a tool and prints its result; exits 1 when the result has isError. A call the server
turns into a task is followed to its end (its status on stderr; Ctrl-C cancels the task).
Example: mcpwire call echo '{"text":"hi"}' -- node dist/examples/stdio-server.js
${INPUT_USAGE}`;

export function runCall(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, CALL_USAGE, INPUT_OPTIONS, async (context) => {
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
    const result = await context.client
      .callTool(name, args, {
        ...requestOptions(context),
        onTaskStatus: context.progress.taskStatus,
      })
      .catch(async (error: unknown) => {
        throw (await unknownTool(context, name, error)) ?? error;
      });
    context.progress.done();
    if (context.settings.json) printJson(result);
    else printText(renderCallResult(result as unknown as JsonObject));
    return result.isError === true ? EXIT_FAILURE : EXIT_OK;
  });
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
