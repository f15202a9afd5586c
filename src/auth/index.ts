/**
 * mcpwire/auth: the OAuth 2.1 client for protected MCP servers. Its dependencies (oauth4webapi,
 * jose) load only through this subpath; the transport's seam and the static bearer provider are
 * in the core (mcpwire/transports/http) and re-exported here.
 *
 * @module mcpwire/auth
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
  isLoopbackUrl,
} from "../transports/http/client/auth.js";
export { type AssertionFileOptions, assertionFromFile } from "./assertion-file.js";
export {
  type ClientIdentity,
  type ClientIdentityOptions,
  chooseMethod,
  firstIssuer,
} from "./client-identity.js";
export {
  DEVICE_CODE_GRANT,
  type DeviceCodeOptions,
  type DeviceCodePrompt,
} from "./device-grant.js";
export {
  authorizationServerMetadataUrls,
  discoverAuthorizationServer,
  discoverResource,
  type ResourceMetadata,
  resourceIdentifies,
  resourceMetadataUrls,
} from "./discovery.js";
export type { StoredDpopKey } from "./dpop.js";
export type { EnterpriseOptions } from "./enterprise.js";
export {
  defaultTokenFile,
  FileTokenStore,
  mcpwireHome,
  TokenStoreError,
} from "./file-token-store.js";
export { OAuthClient } from "./oauth-client.js";
export { type OAuthClientOptions, type OAuthGrant, scopesOf } from "./oauth-options.js";
export { openBrowser } from "./open-browser.js";
export { importPrivateKey, type PrivateKey } from "./private-key.js";
export {
  type HeadlessRedirectOptions,
  headlessRedirect,
  type RedirectHandler,
} from "./redirect.js";
export {
  type LoopbackRedirect,
  type LoopbackRedirectOptions,
  loopbackRedirect,
} from "./redirect-loopback.js";
export { type PasteRedirectOptions, pasteRedirect } from "./redirect-paste.js";
export {
  type ChallengeError,
  type ChallengeParams,
  challengeHeader,
} from "./resource-server/challenge.js";
export { type DpopOptions, InvalidProofError } from "./resource-server/dpop.js";
export { type DpopReplayCache, InMemoryDpopReplayCache } from "./resource-server/dpop-replay.js";
export {
  type IntrospectionOptions,
  tokenIntrospection,
} from "./resource-server/introspection.js";
export { type JwtAccessTokenOptions, jwtAccessTokens } from "./resource-server/jwt-verifier.js";
export {
  type AccessTokenPrincipal,
  InvalidTokenError,
  type VerifiedToken,
} from "./resource-server/principal.js";
export { type ProtectResourceOptions, protectResource } from "./resource-server/protect.js";
export type { ScopeHierarchy } from "./resource-server/scope-hierarchy.js";
export type { TokenVerifier } from "./resource-server/verifier.js";
export {
  type RevocableToken,
  type Revocation,
  type RevokeOptions,
  revokeTokens,
} from "./revocation.js";
export {
  InMemoryTokenStore,
  type StoredClient,
  type StoredTokens,
  type TokenStore,
} from "./token-store.js";
export {
  type AuthChallenge,
  parseWwwAuthenticate,
  type ResourceChallenge,
  resourceChallenge,
  splitScopes,
} from "./www-authenticate.js";
