import type { JsonObject } from "../jsonrpc/types.js";
import type { Tool } from "../protocol/mcp-types.js";
import type { Era } from "../protocol/versions.js";
import type { HandlerContext } from "./context.js";
import type { ToolOptions } from "./tool-options.js";

/**
 * How an extension takes part in the calls of the tools whose options ask for it (the tasks
 * extension reads ToolOptions.task, which it adds to ToolOptions itself). A server extension
 * brings one as `tools`; install() hands it every tool registered, before and after.
 */
export interface ToolCallHook {
  /** The ToolOptions key it reads (`task`): a tool given it on a server without the hook is refused. */
  readonly option: string;
  /**
   * At registration: this tool's part in the extension, or undefined when it takes none.
   * Throws on options the extension refuses (the registration fails with that error).
   */
  adopt(name: string, options: ToolOptions): AdoptedTool | undefined;
  /**
   * Before a tool it did not adopt runs (its arguments already checked): may throw to refuse
   * the call, e.g. 2025-11-25's `task` parameter on a tool that cannot be a task.
   */
  refuse?(name: string, params: JsonObject, context: HandlerContext): void;
}

/** One tool's part in an extension (see ToolCallHook.adopt). */
export interface AdoptedTool {
  /**
   * Client capabilities a modern-era caller needs beyond the tool's own, e.g. the extension
   * for a task-only tool. Not asked of legacy sessions: they have no extensions to declare.
   */
  readonly requires?: JsonObject;
  /** The tool as tools/list shows it in `era` (2025-11-25: execution.taskSupport). */
  listed?(tool: Tool, era: Era): Tool;
  /** Runs one call; `call.invoke` runs the handler and checks what it returned. */
  call(call: AdoptedCall): Promise<JsonObject>;
}

export interface AdoptedCall {
  readonly name: string;
  /** The arguments, checked against the inputSchema. */
  readonly args: JsonObject;
  /** The whole tools/call params (2025-11-25's `task` augmentation among them). */
  readonly params: JsonObject;
  readonly context: HandlerContext;
  readonly invoke: ToolInvocation;
}

/** Runs the tool's handler with `context` and returns its checked result. */
export type ToolInvocation = (context: HandlerContext) => Promise<JsonObject>;
