/**
 * mcpwire/middleware: built-in middleware for `server.use()` (see docs/middleware.md): who sees
 * which tools, an audit trail, rate limits and a size limit on tool results.
 *
 * @module mcpwire/middleware
 */

export { type AuditFile, auditFile } from "./audit/file.js";
export { type AuditOptions, type AuditRecord, audit } from "./audit/index.js";
export { type GlobSet, globSet } from "./glob.js";
export {
  defaultRateLimitKey,
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  RATE_LIMITED,
  type RateLimitDecision,
  type RateLimitOptions,
  type RateLimitStore,
  rateLimit,
} from "./rate-limit/index.js";
export { type ResponseSizeOptions, responseSize } from "./response-size/index.js";
export { type VisibilityOptions, type VisibilityRules, visibility } from "./visibility/index.js";
