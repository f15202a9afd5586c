/**
 * A config entry's own rules for its tools behind the gateway (`"tools"` in the entry):
 * `allow` and `deny` globs on the server's names, `rename` (server's name → offered name) and
 * `descriptions` (server's name → the description offered instead). Applied by the entry's
 * GatewayServer, so its own endpoint and the aggregated `/mcp` show the same tools. A tool they
 * hide, or a server's name renamed away, is unknown to callers and never reaches the server.
 */
import { globSet } from "../../middleware/glob.js";
import type { Tool } from "../../protocol/mcp-types.js";
import type { ToolRules } from "../connect/config-file.js";

export class ToolRuleSet {
  private readonly allow: ((name: string) => boolean) | undefined;
  private readonly deny: (name: string) => boolean;
  private readonly renamed: ReadonlyMap<string, string>;
  private readonly original = new Map<string, string>();
  private readonly descriptions: Readonly<Record<string, string>>;

  constructor(rules: ToolRules) {
    this.allow = rules.allow === undefined ? undefined : globSet(rules.allow);
    this.deny = globSet(rules.deny ?? []);
    this.renamed = new Map(Object.entries(rules.rename ?? {}));
    for (const [from, to] of this.renamed) {
      const taken = this.original.get(to);
      if (taken !== undefined) {
        throw new Error(`"rename" gives ${taken} and ${from} the same name ${to}`);
      }
      this.original.set(to, from);
    }
    this.descriptions = rules.descriptions ?? {};
  }

  /** Whether the server's tool `name` is offered at all. */
  visible(name: string): boolean {
    return (this.allow === undefined || this.allow(name)) && !this.deny(name);
  }

  /** The server's name for the offered `name`, or undefined when no offered tool has it. */
  serverName(name: string): string | undefined {
    const server = this.original.get(name) ?? (this.renamed.has(name) ? undefined : name);
    return server !== undefined && this.visible(server) ? server : undefined;
  }

  /** The server's list as offered: hidden tools left out, renamed, descriptions replaced. */
  offered(tools: readonly Tool[]): Tool[] {
    const seen = new Set<string>();
    const list: Tool[] = [];
    for (const tool of tools) {
      if (!this.visible(tool.name)) continue;
      const name = this.renamed.get(tool.name) ?? tool.name;
      // A tool renamed to a name the server already uses takes it: the server's own goes.
      if (seen.has(name) || this.serverName(name) !== tool.name) continue;
      seen.add(name);
      const description = this.descriptions[tool.name];
      list.push({ ...tool, name, ...(description === undefined ? {} : { description }) });
    }
    return list;
  }
}
