export type { ResponseMode } from "./exchange.js";
export {
  type AnnotationScan,
  type HeaderAnnotation,
  paramHeadersFor,
  scanHeaderAnnotations,
  valueAtPath,
  X_MCP_HEADER,
} from "./header-annotations.js";
export {
  type DecodeResult,
  decodeHeaderValue,
  encodeHeaderValue,
  HEADER,
  NAME_SOURCE,
  PARAM_HEADER_PREFIX,
  paramHeaderName,
  paramHeaderValue,
} from "./headers.js";
export {
  createNodeListener,
  type NodeListenerOptions,
  type ServedHttp,
  type ServeHttpOptions,
  serveHttp,
} from "./node-adapter.js";
export { checkModernRequest, type RequestCheckContext } from "./request-checks.js";
export {
  type CorsOptions,
  hostAllowed,
  isLoopbackHostname,
  LOOPBACK_HOSTNAMES,
  originAllowed,
  type SecurityOptions,
} from "./security.js";
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "./server.js";
export { formatSseEvent, SSE_KEEP_ALIVE } from "./sse.js";
