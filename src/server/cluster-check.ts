import type { McpServerOptions } from "./server-core.js";

/**
 * A server given state shared across processes (a shared subscription event source, or an
 * extension's shared store such as the tasks extension's, named by `sharedByExtension`) runs as one instance of several behind a load balancer. A multi round-trip request's
 * next round may land on any instance, so the requestState one signs must verify on all: with
 * the default per-process random key it would fail on every other instance. Refusing to start
 * is kinder than failing some requests at random.
 */
export function checkClusterSecret(options: McpServerOptions, sharedByExtension?: string): void {
  if (options.mrtr?.secret !== undefined) return;
  const shared = [
    options.subscriptionEvents?.sharedAcrossInstances ? "subscriptionEvents" : undefined,
    sharedByExtension,
  ].filter((name) => name !== undefined);
  if (shared.length === 0) return;
  throw new Error(
    `this server shares ${shared.join(" and ")} with other instances but has no mrtr.secret: ` +
      "a requestState signed with this process's random key would be refused by the others. " +
      "Give every instance the same mrtr.secret (e.g. from redisRequestStateKeys in mcpwire/redis).",
  );
}
