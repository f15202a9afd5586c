export {
  AuthorizationError,
  type AuthorizationStep,
  assertSecureUrl,
  type BearerTokenOptions,
  bearerToken,
  type HttpAuthAnswer,
  type HttpAuthChallenge,
  type HttpAuthProvider,
  type HttpAuthRequest,
  isLoopbackUrl,
} from "./auth.js";
export {
  type HeaderSource,
  HttpClientTransport,
  type HttpClientTransportOptions,
} from "./client-transport.js";
export { CachedLegacyError, type HttpFlavour, HttpStatusError, sharedFlavourCache } from "./era.js";
export { checkToolHeaders, standardHeaders, type ToolHeaderCheck } from "./mcp-headers-out.js";
