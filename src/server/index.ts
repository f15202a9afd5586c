export * from "./connection.js";
export * from "./context.js";
export * from "./features.js";
export * from "./mcp-server.js";
export * from "./mrtr/request-state.js";
export { INPUT_METHODS, InputRequiredSignal } from "./mrtr/round.js";
export * from "./schema-source.js";
export * from "./server-core.js";
export * from "./stdio.js";
