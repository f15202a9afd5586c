/**
 * stdio: start a server as a subprocess (supervised, with its process tree), or serve on this process's stdin/stdout.
 *
 * @module mcpwire/transports/stdio
 */
export * from "./client.js";
export * from "./env.js";
export { signalTree, type TreeSignal, terminateLeftovers, treeAlive } from "./process-tree.js";
export * from "./serve.js";
export * from "./server.js";
export * from "./supervisor.js";
