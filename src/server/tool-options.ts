import type { RequiredClientCapabilities } from "./required-capabilities.js";

/** How a tool is registered beyond its definition (McpServer.tool's third argument). */
export interface ToolOptions {
  /**
   * Client capabilities the tool cannot work without, e.g. `{ elicitation: {} }` or
   * `{ sampling: { tools: {} } }`. A client that lacks any gets -32021 (data.requiredCapabilities
   * naming what it lacks) before the handler runs, and on Streamable HTTP before any byte of a
   * stream: the 400 the spec asks for, not an error inside a 200 stream.
   */
  requiredClientCapabilities?: RequiredClientCapabilities;
  /**
   * OAuth scopes a caller's access token must carry to call the tool, e.g. `["files:write"]`.
   * Enforced on an HTTP endpoint protected with `auth` (mcpwire/auth's protectResource): a
   * token without them gets HTTP 403 insufficient_scope naming them, before the handler runs.
   */
  scopes?: readonly string[];
  // Extensions add options of their own here (module augmentation): the tasks extension's
  // `task` is declared in tasks/task-call.ts.
}
