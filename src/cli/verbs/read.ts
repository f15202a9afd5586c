import type { JsonObject } from "../../jsonrpc/types.js";
import { printableLine } from "../../text/printable.js";
import { INPUT_OPTIONS, INPUT_USAGE } from "../connect/input-answers.js";
import { expectArgs, requestOptions, runWithClient } from "../connect/session.js";
import { EXIT_OK } from "../core/errors.js";
import { printJson, printText, renderReadResult } from "../core/output.js";
import { writeErr } from "../core/terminal.js";
import { writeResource } from "./read-out.js";

const READ_USAGE = `Usage: mcpwire read <target> <uri> [options]
       mcpwire read <uri> [options] -- <command> [args…]

Reads a resource and prints its contents (text as is, binary summarised; --json for all).
  --out <file>   write the contents to <file> instead (a blob decoded: an image, a PDF), and
                 say on stderr how many bytes; a symbolic link at <file> is refused
${INPUT_USAGE}`;

const READ_OPTIONS = { ...INPUT_OPTIONS, out: "value" } as const;

export function runRead(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, READ_USAGE, READ_OPTIONS, async (context) => {
    expectArgs(context.args, 1, 1, "mcpwire read <target> <uri>");
    const uri = context.args[0]!;
    const result = await context.client.readResource(uri, requestOptions(context));
    context.progress.done();
    const out = context.options.out as string | undefined;
    if (out !== undefined) {
      const written = await writeResource(result as unknown as JsonObject, uri, out);
      if (context.settings.json) printJson(written);
      else {
        const type = written.mimeType ? ` (${printableLine(written.mimeType)})` : "";
        writeErr(`wrote ${written.bytes} bytes${type} to ${printableLine(out)}`);
      }
      return EXIT_OK;
    }
    if (context.settings.json) printJson(result);
    else printText(renderReadResult(result as unknown as JsonObject));
    return EXIT_OK;
  });
}
