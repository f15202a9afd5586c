import type { JsonObject } from "../jsonrpc/types.js";
import { EXIT_OK } from "./errors.js";
import { INPUT_OPTIONS, INPUT_USAGE } from "./input-answers.js";
import { printJson, printText, renderReadResult } from "./output.js";
import { expectArgs, requestOptions, runWithClient } from "./session.js";

export const READ_USAGE = `Usage: mcpwire read <target> <uri> [options]
       mcpwire read <uri> [options] -- <command> [args…]

Reads a resource and prints its contents (text as is, binary summarised; --json for all).
${INPUT_USAGE}`;

export function runRead(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, READ_USAGE, INPUT_OPTIONS, async (context) => {
    expectArgs(context.args, 1, 1, "mcpwire read <target> <uri>");
    const result = await context.client.readResource(context.args[0]!, requestOptions(context));
    context.progress.done();
    if (context.settings.json) printJson(result);
    else printText(renderReadResult(result as unknown as JsonObject));
    return EXIT_OK;
  });
}
