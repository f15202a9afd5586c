/**
 * Streamable HTTP: the client transport (every era and flavour) and the server handler with its node:http adapter.
 *
 * @module mcpwire/transports/http
 */

export {
  type AnnotationScan,
  type HeaderAnnotation,
  paramHeadersFor,
  scanHeaderAnnotations,
  valueAtPath,
  X_MCP_HEADER,
} from "../../protocol/header-annotations.js";
export {
  type DecodeResult,
  decodeHeaderValue,
  encodeHeaderValue,
  HEADER,
  NAME_SOURCE,
  PARAM_HEADER_PREFIX,
  paramHeaderName,
  paramHeaderValue,
} from "../../protocol/http-headers.js";
export * from "./client/index.js";
export type { ResponseMode } from "./exchange.js";
export type { HealthOptions, HealthReport } from "./health.js";
export {
  AppendConflict,
  type ClusterBus,
  type ClusterEventStore,
  type ClusterMessage,
  type ClusterRecordStore,
  type ClusterSessionRecord,
  type InstanceLeases,
  type LegacyCluster,
} from "./legacy/cluster.js";
export {
  InMemoryClusterBackend,
  type InMemoryClusterOptions,
} from "./legacy/cluster-memory.js";
export {
  type EventStore,
  InMemoryEventStore,
  type InMemoryEventStoreOptions,
  parseEventId,
  type StoredEvent,
} from "./legacy/event-store.js";
export { FileEventStore, type FileEventStoreOptions } from "./legacy/file-event-store.js";
export {
  FileSessionRecordStore,
  type FileSessionRecordStoreOptions,
} from "./legacy/file-session-records.js";
export {
  ASSUMED_LEGACY_VERSION,
  LegacyHandler,
  type LegacyOptions,
} from "./legacy/legacy-handler.js";
export { LegacySession, RESTARTED_BEFORE_REPLY } from "./legacy/legacy-session.js";
export {
  InMemorySessionRecordStore,
  type SessionRecord,
  type SessionRecordStore,
  type StreamRecord,
} from "./legacy/session-records.js";
export { InMemorySessionStore, type SessionStore } from "./legacy/session-store.js";
export type { LegacySseOptions } from "./legacy/sse-fallback.js";
export {
  createNodeListener,
  type NodeListenerOptions,
  type ServedHttp,
  type ServeHttpOptions,
  serveHttp,
} from "./node-adapter.js";
export { checkModernRequest, type RequestCheckContext } from "./request-checks.js";
export type { GuardedRequest, ResourceGuard } from "./resource-guard.js";
export {
  type CorsOptions,
  hostAllowed,
  isLoopbackHostname,
  LOOPBACK_HOSTNAMES,
  originAllowed,
  type SecurityOptions,
} from "./security.js";
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "./server.js";
export { formatPrimingEvent, formatSseEvent, SSE_KEEP_ALIVE } from "./sse.js";
