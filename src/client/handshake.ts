import { isPlainObject } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import { readImplementation } from "../protocol/implementation.js";
import type {
  ClientCapabilities,
  Implementation,
  LoggingLevel,
  ServerCapabilities,
} from "../protocol/mcp-types.js";
import { META } from "../protocol/meta.js";
import type { RequestOptions } from "../protocol/outgoing.js";
import { type Era, isLegacyVersion, LEGACY_VERSIONS } from "../protocol/versions.js";
import { InvalidResultError } from "./results.js";

/** What the client learned about the server from its handshake. */
export interface ServerState {
  era: Era;
  protocolVersion: string;
  serverInfo: Implementation | undefined;
  capabilities: ServerCapabilities;
  instructions: string | undefined;
  /** Modern: from the DiscoverResult. Legacy: the negotiated version only. */
  supportedVersions: string[];
}

/** The reserved `_meta` fields a modern request carries, under the caller's own `_meta`. */
export function modernMeta(fields: {
  protocolVersion: string;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  logLevel: LoggingLevel | undefined;
}): JsonObject {
  const meta: JsonObject = {
    [META.protocolVersion]: fields.protocolVersion,
    [META.clientCapabilities]: fields.capabilities,
    [META.clientInfo]: fields.clientInfo,
  };
  if (fields.logLevel !== undefined) meta[META.logLevel] = fields.logLevel;
  return meta;
}

/**
 * Params with extra `_meta` merged in; the caller's keys win over `base`. `shareBase`: when
 * nothing is merged into it, `base` itself becomes the `_meta` (no copy per request; the caller
 * keeps it frozen).
 */
export function withMeta(
  params: JsonObject | undefined,
  base: JsonObject | undefined,
  extra: JsonObject | undefined,
  shareBase = false,
): JsonObject | undefined {
  const own = isPlainObject(params?._meta) ? params._meta : undefined;
  if (!base && !extra && !own) return params;
  // Object.assign, not a spread that adds `_meta`: on Node 20 such copies outlived their request
  // in the young generation (see McpServer.decorateModern).
  const merged: JsonObject = Object.assign({}, params);
  merged._meta = shareBase && base && !own && !extra ? base : Object.assign({}, base, own, extra);
  return merged;
}

export function stateFromDiscover(version: string, result: JsonObject): ServerState {
  const meta = isPlainObject(result._meta) ? result._meta : {};
  const serverInfo = meta[META.serverInfo];
  return {
    era: "modern",
    protocolVersion: version,
    serverInfo: readImplementation(serverInfo),
    capabilities: isPlainObject(result.capabilities) ? result.capabilities : {},
    instructions: typeof result.instructions === "string" ? result.instructions : undefined,
    supportedVersions: (result.supportedVersions as string[] | undefined) ?? [version],
  };
}

/**
 * The legacy handshake's request: `initialize` and a version check (the caller then sends
 * `notifications/initialized`). A server answering with a version outside LEGACY_VERSIONS is
 * refused (the caller closes).
 */
export async function legacyInitialize(
  /** Sends the initialize request (through the client's middleware). */
  sendInitialize: (params: JsonObject, options: RequestOptions) => Promise<JsonObject>,
  request: {
    protocolVersion: string;
    capabilities: ClientCapabilities;
    clientInfo: Implementation;
    timeoutMs: number | undefined;
    /** Gives up the handshake (connect() abandoned). */
    signal?: AbortSignal;
  },
): Promise<ServerState> {
  const params: JsonObject = {
    protocolVersion: request.protocolVersion,
    capabilities: request.capabilities,
    clientInfo: request.clientInfo,
  };
  const result = await sendInitialize(params, {
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    ...(request.signal ? { signal: request.signal } : {}),
  });
  const version = result.protocolVersion;
  if (!isLegacyVersion(version)) {
    throw new InvalidResultError(
      "initialize",
      result,
      `the server chose protocol version ${JSON.stringify(version)}, which this client does not ` +
        `speak (it speaks ${LEGACY_VERSIONS.join(", ")})`,
    );
  }
  return {
    era: "legacy",
    protocolVersion: version,
    serverInfo: readImplementation(result.serverInfo),
    capabilities: isPlainObject(result.capabilities) ? result.capabilities : {},
    instructions: typeof result.instructions === "string" ? result.instructions : undefined,
    supportedVersions: [version],
  };
}
