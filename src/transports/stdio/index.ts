export * from "./client.js";
export * from "./env.js";
export { signalTree, type TreeSignal, terminateLeftovers, treeAlive } from "./process-tree.js";
export * from "./server.js";
export * from "./supervisor.js";
