/**
 * McpServer: tools, resources, prompts and completions, served in the modern and legacy eras, plus serveStdio (also in mcpwire/transports/stdio; serveHttp is in mcpwire/transports/http).
 *
 * @module mcpwire/server
 */

// The one entry that reaches up a layer: a stdio server imports this subpath alone, so the stdio
// client half (spawning, process trees) stays out of its cold start.
export { serveStdio } from "../transports/stdio/serve.js";
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
export * from "./subscriptions.js";
export * from "./tasks/index.js";
