/**
 * McpServer: tools, resources, prompts and completions, served in the modern and legacy eras, plus serveStdio.
 *
 * @module mcpwire/server
 */
export * from "./connection.js";
export * from "./context.js";
export * from "./features.js";
export * from "./mcp-server.js";
export * from "./mrtr/request-state.js";
export { INPUT_METHODS, InputRequiredSignal } from "./mrtr/round.js";
export type { RequiredClientCapabilities } from "./required-capabilities.js";
export * from "./safe-paths.js";
export * from "./schema-source.js";
export * from "./server-core.js";
export * from "./stdio.js";
export * from "./subscriptions.js";
export * from "./tasks/index.js";
