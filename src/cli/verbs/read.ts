import type { JsonObject } from "../../jsonrpc/types.js";
import { INPUT_OPTIONS, INPUT_USAGE } from "../connect/input-answers.js";
import { expectArgs, requestOptions, runWithClient } from "../connect/session.js";
import { EXIT_OK } from "../core/errors.js";
import { printJson, printText, renderReadResult } from "../core/output.js";

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
