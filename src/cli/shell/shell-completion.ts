import type { McpClient } from "../../client/index.js";
import { ignoreError } from "../../text/ignored-error.js";
import { printableLine } from "../../text/printable.js";

/** Everything the shell understands as a first word. */
const SHELL_VERBS = [
  "call",
  "tools",
  "resources",
  "prompts",
  "read",
  "prompt",
  "raw",
  "listen",
  "unlisten",
  "discover",
  "cancel",
  "jobs",
  "help",
  "exit",
  ".era",
  ".restart",
  ".stderr",
  ".exit",
] as const;

/** Methods offered after `raw` (any other method may still be typed). */
const RAW_METHODS = [
  "server/discover",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
];

type CatalogKind = "tools" | "resources" | "prompts";

/** Which list a list_changed notification makes stale. */
export const LIST_CHANGED_KIND: Record<string, CatalogKind> = {
  "notifications/tools/list_changed": "tools",
  "notifications/resources/list_changed": "resources",
  "notifications/prompts/list_changed": "prompts",
};

/**
 * The server's tool names, resource URIs and prompt names, fetched after connecting and again
 * when the server says a list changed, so that Tab offers what the server has right now.
 * readline shows candidates (and inserts the chosen one) as they are, so a name with control
 * characters is never offered: it would reach the terminal raw. discover shows it, escaped.
 */
export class ShellCatalog {
  tools: string[] = [];
  resources: string[] = [];
  prompts: string[] = [];

  /** Fetches the lists the server's capabilities promise; a list that fails stays as it was. */
  async refresh(
    client: McpClient,
    kinds: CatalogKind[] = ["tools", "resources", "prompts"],
  ): Promise<void> {
    const capabilities = client.serverCapabilities ?? {};
    await Promise.all(
      kinds.map(async (kind) => {
        if (!capabilities[kind]) {
          this[kind] = [];
          return;
        }
        try {
          if (kind === "tools")
            this.tools = offered((await client.listAllTools()).map((t) => t.name));
          else if (kind === "prompts")
            this.prompts = offered((await client.listAllPrompts()).map((p) => p.name));
          else this.resources = offered((await client.listAllResources()).map((r) => r.uri));
        } catch (error) {
          // Completion is a convenience; the command itself reports real failures.
          ignoreError(`listing ${kind} for completion`, error);
        }
      }),
    );
  }

  /** readline's completer: candidates for the word under the cursor, and that word. */
  readonly complete = (line: string): [string[], string] => {
    const words = line.trimStart().split(/\s+/);
    const current = words[words.length - 1] ?? "";
    let candidates: readonly string[] = [];
    if (words.length === 1) candidates = SHELL_VERBS;
    else if (words.length === 2) {
      const verb = words[0];
      if (verb === "call") candidates = this.tools;
      else if (verb === "read") candidates = this.resources;
      else if (verb === "prompt") candidates = this.prompts;
      else if (verb === "raw") candidates = RAW_METHODS;
    }
    const hits = candidates.filter((candidate) => candidate.startsWith(current));
    // One match is taken whole, with the space that starts the next word.
    if (hits.length === 1) return [[`${hits[0]} `], current];
    return [[...hits].sort(), current];
  };
}

/** The names that are safe to hand to readline: printable as they are. */
function offered(names: string[]): string[] {
  return names.filter((name) => typeof name === "string" && printableLine(name) === name);
}
