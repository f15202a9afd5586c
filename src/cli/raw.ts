import type { JsonObject } from "../jsonrpc/types.js";
import { parseJsonObject } from "./args.js";
import { EXIT_OK } from "./errors.js";
import { printJson } from "./output.js";
import { expectArgs, requestOptions, runWithClient } from "./session.js";

export const RAW_USAGE = `Usage: mcpwire raw <target> <method> [json-params] [options]
       mcpwire raw <method> [json-params] [options] -- <command> [args…]

Sends any request after the handshake (era-aware: modern requests get their _meta) and prints
the result as JSON. Example: mcpwire raw http://127.0.0.1:3000/mcp tools/list
`;

export function runRaw(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, RAW_USAGE, {}, async (context) => {
    expectArgs(context.args, 1, 2, "mcpwire raw <target> <method> [json-params]");
    const [method, json] = context.args as [string, string | undefined];
    const params = parseJsonObject(json, "request params") as JsonObject | undefined;
    const result = await context.client.request(method, params, requestOptions(context));
    context.progress.done();
    // A raw result has no shape to render: it is always printed as JSON.
    printJson(result);
    return EXIT_OK;
  });
}
