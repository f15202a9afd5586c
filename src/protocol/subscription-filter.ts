import type { ServerCapabilities, SubscriptionFilter } from "./mcp-types.js";

/** The part of a requested filter the server's capabilities let it honour. */
export function honouredFilter(
  requested: SubscriptionFilter,
  capabilities: ServerCapabilities,
): SubscriptionFilter {
  const honoured: SubscriptionFilter = {};
  if (requested.toolsListChanged && capabilities.tools?.listChanged) {
    honoured.toolsListChanged = true;
  }
  if (requested.promptsListChanged && capabilities.prompts?.listChanged) {
    honoured.promptsListChanged = true;
  }
  if (requested.resourcesListChanged && capabilities.resources?.listChanged) {
    honoured.resourcesListChanged = true;
  }
  if (requested.resourceSubscriptions && capabilities.resources?.subscribe) {
    honoured.resourceSubscriptions = [...requested.resourceSubscriptions];
  }
  return honoured;
}
