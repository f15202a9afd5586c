import type { JsonObject } from "../../jsonrpc/types.js";
import { expectArgs, requestOptions, runWithClient } from "../connect/session.js";
import { EXIT_OK } from "../core/errors.js";
import { printJson } from "../core/output.js";
import { readArgumentWords } from "./tool-arguments.js";

const RAW_USAGE = `Usage: mcpwire raw <target> <method> [json-params] [options]
       mcpwire raw <method> [json-params] [options] -- <command> [args…]

Sends any request after the handshake (era-aware: modern requests get their _meta) and prints
the result as JSON. Example: mcpwire raw http://127.0.0.1:3000/mcp tools/list
`;

export function runRaw(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, RAW_USAGE, {}, async (context) => {
    expectArgs(
      context.args,
      1,
      Number.POSITIVE_INFINITY,
      "mcpwire raw <target> <method> [json-params]",
    );
    const [method, ...words] = context.args as [string, ...string[]];
    // JSON, @file.json, - (stdin), or key=value pairs (strings: no schema to type them by).
    const given = await readArgumentWords(words, "request params");
    const params = (
      given.kind === "json"
        ? given.value
        : given.kind === "pairs"
          ? Object.fromEntries(given.pairs)
          : undefined
    ) as JsonObject | undefined;
    const result = await context.client.request(method, params, requestOptions(context));
    context.progress.done();
    // A raw result has no shape to render: it is always printed as JSON.
    printJson(result);
    return EXIT_OK;
  });
}
