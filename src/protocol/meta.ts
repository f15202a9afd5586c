/** Reserved `_meta` keys (2026-07-28, basic/index.mdx). */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  progressToken: "progressToken",
} as const;
