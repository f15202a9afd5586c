export * from "./jsonrpc/index.js";
export * from "./transports/index.js";
