/** Methods whose complete results carry ttlMs/cacheScope (2026-07-28 server/utilities/caching). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);
