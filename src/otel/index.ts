/**
 * mcpwire/otel: OpenTelemetry traces and metrics by the semantic conventions for MCP, and W3C
 * trace context across the wire (see docs/observability.md): `server.use(otelServerMiddleware())`
 * and `client.use(otelClientMiddleware())`. Needs `@opentelemetry/api` installed beside mcpwire
 * (an optional peer): with no provider registered nothing is recorded.
 * startOtelSdk sets up the SDK itself from the `OTEL_*` variables, loading its packages on
 * demand.
 *
 * @module mcpwire/otel
 */

export type { CaptureOptions } from "./attributes.js";
export {
  ATTR,
  DURATION_BUCKETS,
  ERROR_TYPE,
  METRIC,
  NETWORK_TRANSPORT,
  TRACE_META_KEYS,
} from "./conventions.js";
export {
  type OtelMiddlewareOptions,
  otelClientMiddleware,
  otelServerMiddleware,
} from "./middleware.js";
export {
  type OtelSdkHandle,
  type OtelSdkOptions,
  OtelSetupError,
  type OtlpProtocol,
  otelSdkPackages,
  startOtelSdk,
} from "./sdk.js";
export { recordClientSession } from "./session.js";
export { otelTaskRuns } from "./task-runs.js";
