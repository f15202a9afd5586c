import { InvalidParamsError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type { CompleteResult } from "../protocol/mcp-types.js";
import type { Registry } from "./registry.js";

/** Suggests values for one argument (of a prompt) or variable (of a resource template). */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => string[] | Promise<string[]>;

const MAX_COMPLETIONS = 100;

/** What completion needs of a prompt or template entry: its completers, if any. */
type Completable = Registry<{ options: { complete?: Record<string, Completer> } }>;

/**
 * completion/complete: the completer a prompt's argument or a resource template's variable was
 * registered with (none: no suggestions), its answer cut to the spec's 100 values.
 */
export async function complete(
  params: JsonObject,
  prompts: Completable,
  resources: Registry<unknown>,
  templates: Completable,
): Promise<CompleteResult> {
  const ref = params.ref as JsonObject | undefined;
  const argument = params.argument as JsonObject | undefined;
  if (!ref || typeof argument?.name !== "string" || typeof argument.value !== "string") {
    throw new InvalidParamsError("completion/complete needs ref and argument {name, value}");
  }
  const context = {
    arguments: ((params.context as JsonObject | undefined)?.arguments ?? {}) as Record<
      string,
      string
    >,
  };
  let completers: Record<string, Completer> | undefined;
  if (ref.type === "ref/prompt" && typeof ref.name === "string") {
    const entry = prompts.get(ref.name);
    if (!entry) throw new InvalidParamsError(`Unknown prompt: ${ref.name}`);
    completers = entry.options.complete;
  } else if (ref.type === "ref/resource" && typeof ref.uri === "string") {
    const entry = templates.get(ref.uri);
    if (!entry && !resources.get(ref.uri)) {
      throw new InvalidParamsError(`Unknown resource template: ${ref.uri}`);
    }
    completers = entry?.options.complete;
  } else {
    throw new InvalidParamsError("completion ref must be ref/prompt or ref/resource");
  }
  const completer = completers?.[argument.name];
  const values = completer ? await completer(argument.value, context) : [];
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETIONS),
      total: values.length,
      hasMore: values.length > MAX_COMPLETIONS,
    },
  };
}
