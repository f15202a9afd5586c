/**
 * Streamable HTTP: the client transport (every era and flavour) and the server handler with its node:http adapter.
 *
 * @module mcpwire/transports/http
 */
export {
  AuthorizationError,
  type AuthorizationStep,
  type BearerTokenOptions,
  bearerToken,
  type HttpAuthAnswer,
  type HttpAuthChallenge,
  type HttpAuthProvider,
  type HttpAuthRequest,
} from "./client/auth.js";
export { HttpClientTransport } from "./client/client-transport.js";
export { type HttpFlavour, HttpStatusError } from "./client/era.js";
export type { HeaderSource, HttpClientTransportOptions } from "./client/options.js";
export type { ResponseMode } from "./exchange.js";
export type { HttpHandlerOptions } from "./handler-options.js";
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
export { InMemoryClusterBackend, type InMemoryClusterOptions } from "./legacy/cluster-memory.js";
export {
  type EventStore,
  InMemoryEventStore,
  type InMemoryEventStoreOptions,
  type StoredEvent,
} from "./legacy/event-store.js";
export { FileEventStore, type FileEventStoreOptions } from "./legacy/file-event-store.js";
export {
  FileSessionRecordStore,
  type FileSessionRecordStoreOptions,
} from "./legacy/file-session-records.js";
export { LegacyHandler } from "./legacy/legacy-handler.js";
export type { LegacyOptions } from "./legacy/legacy-options.js";
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
export type { GuardedRequest, ResourceGuard } from "./resource-guard.js";
export type { CorsOptions, SecurityOptions } from "./security.js";
export { createHttpHandler, type HttpHandler } from "./server.js";
