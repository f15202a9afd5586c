import type { JsonObject } from "../../jsonrpc/types.js";
import { INPUT_OPTIONS, INPUT_USAGE } from "../connect/input-answers.js";
import { expectArgs, requestOptions, runWithClient } from "../connect/session.js";
import { EXIT_OK, UsageError } from "../core/errors.js";
import { printJson, printText, renderPromptResult } from "../core/output.js";
import { readArgumentWords } from "./tool-arguments.js";

const PROMPT_USAGE = `Usage: mcpwire prompt <target> <name> [json-args] [options]
       mcpwire prompt <name> [json-args] [options] -- <command> [args…]

Gets a prompt and prints its messages. Prompt arguments are strings: '{"name":"Ada"}'.
${INPUT_USAGE}`;

export function runPrompt(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, PROMPT_USAGE, INPUT_OPTIONS, async (context) => {
    expectArgs(
      context.args,
      1,
      Number.POSITIVE_INFINITY,
      "mcpwire prompt <target> <name> [json-args]",
    );
    const [name, ...words] = context.args as [string, ...string[]];
    // JSON, @file.json, - (stdin), or key=value pairs (strings: no schema to type them by).
    const given = await readArgumentWords(words, "prompt arguments");
    const args =
      given.kind === "json"
        ? given.value
        : given.kind === "pairs"
          ? Object.fromEntries(given.pairs)
          : undefined;
    if (args) {
      for (const [key, value] of Object.entries(args)) {
        if (typeof value !== "string") {
          throw new UsageError(`prompt argument ${JSON.stringify(key)} must be a string`);
        }
      }
    }
    const result = await context.client.getPrompt(
      name,
      args as Record<string, string> | undefined,
      requestOptions(context),
    );
    context.progress.done();
    if (context.settings.json) printJson(result);
    else printText(renderPromptResult(result as unknown as JsonObject));
    return EXIT_OK;
  });
}
