/**
 * The names OpenTelemetry's semantic conventions for MCP give to spans, attributes and metrics
 * (`docs/gen-ai/mcp.md` in the `semantic-conventions-genai` repository, status Development), in
 * one place: the conventions are still moving, and when they move only this file changes.
 * test/otel/conventions.test.ts pins every value, so a rename here is a reviewed diff.
 */

/** Span and metric attributes. */
export const ATTR = {
  /** Required: the request or notification method (`tools/call`). */
  methodName: "mcp.method.name",
  /** A request's JSON-RPC id as a string; never set for notifications or a null id. */
  requestId: "jsonrpc.request.id",
  /** Recommended only when it is not "2.0", so never set by mcpwire. */
  jsonrpcVersion: "jsonrpc.protocol.version",
  /** The MCP revision the exchange uses (`2026-07-28`, `2025-11-25`). */
  protocolVersion: "mcp.protocol.version",
  /** The legacy session id (`Mcp-Session-Id` over HTTP); modern MCP has no sessions. */
  sessionId: "mcp.session.id",
  /** The resource URI of resources/read, (un)subscribe and notifications/resources/updated. */
  resourceUri: "mcp.resource.uri",
  /** The tool of tools/call. */
  toolName: "gen_ai.tool.name",
  /** The prompt of prompts/get. */
  promptName: "gen_ai.prompt.name",
  /** `execute_tool` on tools/call, absent otherwise. */
  operationName: "gen_ai.operation.name",
  /** Opt-in: the tool call's arguments, as JSON text. */
  toolCallArguments: "gen_ai.tool.call.arguments",
  /** Opt-in: the tool call's result, as JSON text. */
  toolCallResult: "gen_ai.tool.call.result",
  /** The JSON-RPC error code of an error reply, as a string (`-32602`). */
  responseStatusCode: "rpc.response.status_code",
  /** A low-cardinality class of failure: the error code, `tool_error`, or one of ERROR_TYPE. */
  errorType: "error.type",
  /** `pipe` (stdio), `tcp` (HTTP, TCP sockets), `unix` (Unix sockets). */
  /**
   * Not in the conventions (which say nothing of tasks yet): the task a background run is for,
   * on its span, so that the run can be found from the CreateTaskResult.
   */
  taskId: "mcp.task.id",
  networkTransport: "network.transport",
  /** `http` over Streamable HTTP and HTTP+SSE. */
  networkProtocolName: "network.protocol.name",
  networkProtocolVersion: "network.protocol.version",
  serverAddress: "server.address",
  serverPort: "server.port",
  clientAddress: "client.address",
  clientPort: "client.port",
} as const;

/** Values of `gen_ai.operation.name`. */
export const OPERATION = { executeTool: "execute_tool" } as const;

/** Values of `network.transport`. */
export const NETWORK_TRANSPORT = { pipe: "pipe", tcp: "tcp", unix: "unix" } as const;

/**
 * Values of `error.type` besides a JSON-RPC error code (`-32602`): `tool_error` for a
 * CallToolResult with `isError`, `_OTHER` (the conventions' fallback) for a failure that has no
 * code. A local failure (no reply ever came) uses its LocalError kind: `timeout`, `closed`,
 * `aborted`, ...
 */
export const ERROR_TYPE = { toolError: "tool_error", other: "_OTHER" } as const;

/** Span kinds by side: the sender of a request or notification is CLIENT, its receiver SERVER. */
export const SPAN_KIND = { sender: "CLIENT", receiver: "SERVER" } as const;

/**
 * The attributes the operation-duration histograms carry: the span's, less the ones of high
 * cardinality (request id, session id, peer address and port on the server side, opt-in
 * payloads). `mcp.resource.uri` is opt-in on metrics as on span names.
 */
export const OPERATION_METRIC_ATTRIBUTES: readonly string[] = Object.freeze([
  ATTR.methodName,
  ATTR.errorType,
  ATTR.promptName,
  ATTR.toolName,
  ATTR.responseStatusCode,
  ATTR.operationName,
  ATTR.protocolVersion,
  ATTR.networkProtocolName,
  ATTR.networkProtocolVersion,
  ATTR.networkTransport,
  ATTR.serverAddress,
  ATTR.serverPort,
]);

/** The metric instruments: histograms in seconds. */
export const METRIC = {
  clientOperationDuration: "mcp.client.operation.duration",
  serverOperationDuration: "mcp.server.operation.duration",
  clientSessionDuration: "mcp.client.session.duration",
  serverSessionDuration: "mcp.server.session.duration",
} as const;

export const METRIC_UNIT = "s";

/** The explicit bucket boundaries every MCP duration histogram SHOULD use, in seconds. */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
]);

/**
 * The `_meta` keys W3C trace context travels in (the 2026-07-28 revision reserves them,
 * unprefixed, in basic/index.mdx); nothing else a propagator writes goes into `_meta`.
 */
export const TRACE_META_KEYS: readonly string[] = Object.freeze([
  "traceparent",
  "tracestate",
  "baggage",
]);

/** The instrumentation scope our tracer and meter report. */
export const INSTRUMENTATION_SCOPE = "mcpwire";
