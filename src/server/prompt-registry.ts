import { InvalidParamsError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type { GetPromptResult, Prompt } from "../protocol/mcp-types.js";
import type { Completer } from "./completion.js";
import type { HandlerContext } from "./context.js";
import { paginate, Registry, withCursor } from "./registry.js";
import { checkScopes } from "./scopes.js";

export type PromptHandler = (
  args: Record<string, string>,
  context: HandlerContext,
) => GetPromptResult | Promise<GetPromptResult>;

export interface PromptOptions {
  complete?: Record<string, Completer>;
  /** OAuth scopes a caller's access token must carry to get it; enforced like ToolOptions.scopes. */
  scopes?: readonly string[];
}

interface RegisteredPrompt {
  prompt: Prompt;
  handler: PromptHandler;
  options: PromptOptions;
}

/** The server's prompts: prompts/list and prompts/get (arguments checked before the handler). */
export class PromptRegistry extends Registry<RegisteredPrompt> {
  add(prompt: Prompt, handler: PromptHandler, options: PromptOptions = {}): () => void {
    checkScopes(options.scopes, `prompt ${prompt.name}`);
    return this.set(prompt.name, { prompt, handler, options });
  }

  list(params: JsonObject, pageSize?: number): JsonObject {
    const all = [...this.values()].map((entry) => entry.prompt);
    const { page, nextCursor } = paginate(all, params.cursor, pageSize);
    return withCursor({ prompts: page }, nextCursor);
  }

  async getPrompt(params: JsonObject, context: HandlerContext): Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== "string") throw new InvalidParamsError('prompts/get needs a string "name"');
    const entry = this.get(name);
    if (!entry) throw new InvalidParamsError(`Unknown prompt: ${name}`, { name });
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new InvalidParamsError("prompt arguments must be an object");
    }
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== "string") {
        throw new InvalidParamsError(`Prompt argument ${key} must be a string`);
      }
    }
    for (const argument of entry.prompt.arguments ?? []) {
      if (argument.required && args[argument.name] === undefined) {
        throw new InvalidParamsError(
          `Missing required argument ${argument.name} for prompt ${name}`,
        );
      }
    }
    return (await entry.handler(args as Record<string, string>, context)) as JsonObject;
  }
}
