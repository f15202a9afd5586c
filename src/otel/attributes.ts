/**
 * What the conventions record about one MCP request or notification, before it runs: the span
 * name and the attributes known up front. Plain data in, plain data out, so the client and the
 * server side (and tests) share it.
 */
import type { Attributes } from "@opentelemetry/api";
import type { JsonObject, JsonRpcId } from "../jsonrpc/types.js";
import { ATTR, OPERATION } from "./conventions.js";

/** Where the exchange travels; every field optional (an in-process pair has none). */
export interface NetworkFacts {
  /** `network.transport`: `pipe`, `tcp` or `unix`. */
  transport?: string;
  /** `network.protocol.name`: `http` over HTTP. */
  protocolName?: string;
  protocolVersion?: string;
  /** The other side's address and port: `server.*` on a client span, `client.*` on a server span. */
  peerAddress?: string;
  peerPort?: number;
}

/** One request or notification, as either side sees it. */
export interface OperationFacts {
  method: string;
  params?: JsonObject | undefined;
  /** Absent for a notification. */
  requestId?: JsonRpcId | undefined;
  protocolVersion?: string | undefined;
  /** Legacy sessions only. */
  sessionId?: string | undefined;
  network?: NetworkFacts | undefined;
}

/** Opt-ins the conventions leave off by default (high cardinality or sensitive). */
export interface CaptureOptions {
  /** Put the resource URI into span names (`resources/read file:///a`) and metrics. */
  resourceUriInNames?: boolean;
  /** Record `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` (may hold secrets). */
  toolPayloads?: boolean;
}

const RESOURCE_METHODS: ReadonlySet<string> = new Set([
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "notifications/resources/updated",
]);

function stringParam(params: JsonObject | undefined, key: string): string | undefined {
  const value = params?.[key];
  return typeof value === "string" ? value : undefined;
}

/** The low-cardinality target of a span name: the tool or prompt, the URI only on opt-in. */
function targetOf(facts: OperationFacts, capture: CaptureOptions | undefined): string | undefined {
  switch (facts.method) {
    case "tools/call":
    case "prompts/get":
      return stringParam(facts.params, "name");
    default:
      return capture?.resourceUriInNames && RESOURCE_METHODS.has(facts.method)
        ? stringParam(facts.params, "uri")
        : undefined;
  }
}

/** `{mcp.method.name} {target}`, or the method alone when there is no target. */
export function spanName(facts: OperationFacts, capture?: CaptureOptions): string {
  const target = targetOf(facts, capture);
  return target === undefined ? facts.method : `${facts.method} ${target}`;
}

/**
 * The attributes known before the operation runs. `side` picks which end the peer address
 * describes: a client span names the server, a server span the client.
 */
export function startAttributes(
  facts: OperationFacts,
  side: "client" | "server",
  capture?: CaptureOptions,
): Attributes {
  // Assigned, not a literal with a computed key: V8 defines those through a runtime call.
  const attributes: Attributes = {};
  attributes[ATTR.methodName] = facts.method;
  // A JSON-RPC id of null is never ours to record (the conventions say so); ids are
  // strings or numbers here, recorded as text.
  if (facts.requestId !== undefined) attributes[ATTR.requestId] = String(facts.requestId);
  if (facts.protocolVersion) attributes[ATTR.protocolVersion] = facts.protocolVersion;
  if (facts.sessionId) attributes[ATTR.sessionId] = facts.sessionId;
  const { params } = facts;
  if (facts.method === "tools/call") {
    const name = stringParam(params, "name");
    if (name !== undefined) attributes[ATTR.toolName] = name;
    attributes[ATTR.operationName] = OPERATION.executeTool;
    if (capture?.toolPayloads && params?.arguments !== undefined) {
      attributes[ATTR.toolCallArguments] = JSON.stringify(params.arguments);
    }
  } else if (facts.method === "prompts/get") {
    const name = stringParam(params, "name");
    if (name !== undefined) attributes[ATTR.promptName] = name;
  } else if (RESOURCE_METHODS.has(facts.method)) {
    const uri = stringParam(params, "uri");
    if (uri !== undefined) attributes[ATTR.resourceUri] = uri;
  }
  const network = facts.network;
  if (network !== undefined) {
    if (network.transport) attributes[ATTR.networkTransport] = network.transport;
    if (network.protocolName) attributes[ATTR.networkProtocolName] = network.protocolName;
    if (network.protocolVersion) attributes[ATTR.networkProtocolVersion] = network.protocolVersion;
    if (network.peerAddress) {
      const client = side === "server";
      attributes[client ? ATTR.clientAddress : ATTR.serverAddress] = network.peerAddress;
      if (network.peerPort !== undefined) {
        attributes[client ? ATTR.clientPort : ATTR.serverPort] = network.peerPort;
      }
    }
  }
  return attributes;
}
