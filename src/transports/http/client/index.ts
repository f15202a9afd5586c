export {
  type HeaderSource,
  HttpClientTransport,
  type HttpClientTransportOptions,
} from "./client-transport.js";
export { CachedLegacyError, type HttpFlavour, HttpStatusError, sharedFlavourCache } from "./era.js";
export { checkToolHeaders, standardHeaders } from "./mcp-headers-out.js";
