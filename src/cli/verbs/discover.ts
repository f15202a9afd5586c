import type { McpClient } from "../../client/index.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "../../protocol/mcp-types.js";
import { printable, printableLine } from "../../text/printable.js";
import { expectArgs, runWithClient } from "../connect/session.js";
import { EXIT_OK } from "../core/errors.js";
import { printJson, printText } from "../core/output.js";
import { promptLines, resourceLines, toolLines } from "./list-lines.js";

const DISCOVER_USAGE = `Usage: mcpwire discover <target> [options]
       mcpwire discover [options] -- <command> [args…]

Shows the server's era, protocol versions, identity, capabilities, instructions, tools,
resources, resource templates and prompts.

Targets: http(s)://… (Streamable HTTP), tcp://host:port, unix:/path, -- <command> (stdio),
         or --server <name> from --config <file> (default ./.mcp.json; --input id=VALUE,
         --send-env NAME for its variables, see mcpwire servers --help)
Options: --era modern|legacy|auto  --header "K: V" (HTTP, repeatable)  --timeout <ms>
         --json  --verbose (the wire on stderr)
         -e/--env KEY=VALUE, --env-from <file>, --inherit-env (a stdio server's environment)
`;

interface DiscoverReport {
  era: string | undefined;
  protocolVersion: string | undefined;
  supportedVersions: string[] | undefined;
  serverInfo: JsonObject | undefined;
  capabilities: JsonObject;
  instructions: string | undefined;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

export function runDiscover(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, DISCOVER_USAGE, {}, async (context) => {
    expectArgs(context.args, 0, 0, "mcpwire discover <target>");
    const report = await collect(context.client, context.signal);
    if (context.settings.json) printJson(report);
    else printText(render(report));
    return EXIT_OK;
  });
}

/** Asks for everything the server's capabilities say it has; lists it lacks stay empty. */
export async function collect(client: McpClient, signal: AbortSignal): Promise<DiscoverReport> {
  const options = { signal };
  await client.discover(options);
  const capabilities = (client.serverCapabilities ?? {}) as JsonObject;
  const [tools, resources, resourceTemplates, prompts] = await Promise.all([
    capabilities.tools ? client.listAllTools(options) : [],
    capabilities.resources ? client.listAllResources(options) : [],
    capabilities.resources ? client.listAllResourceTemplates(options) : [],
    capabilities.prompts ? client.listAllPrompts(options) : [],
  ]);
  return {
    era: client.era,
    protocolVersion: client.protocolVersion,
    supportedVersions: client.supportedVersions,
    serverInfo: client.serverInfo as JsonObject | undefined,
    capabilities,
    instructions: client.instructions,
    tools,
    resources,
    resourceTemplates,
    prompts,
  };
}

/** A single-line field of the server's, made printable (undefined stays undefined). */
function line(value: unknown): string {
  return printableLine(String(value));
}

/** The report as text; every string the server sent is made printable. */
export function render(report: DiscoverReport): string {
  const lines: string[] = [];
  const versions = report.supportedVersions?.map(line).join(", ") ?? "?";
  lines.push(
    `era           ${report.era} (protocol ${line(report.protocolVersion)}; server speaks ${versions})`,
  );
  const info = report.serverInfo;
  if (info) {
    const title = typeof info.title === "string" ? ` — ${line(info.title)}` : "";
    lines.push(`server        ${line(info.name)} ${line(info.version ?? "")}${title}`.trimEnd());
  }
  lines.push(`capabilities  ${renderCapabilities(report.capabilities) || "(none)"}`);
  if (report.instructions) {
    // Several lines of instructions stay inside their column.
    lines.push(
      `instructions  ${printable(report.instructions).replace(/\n/g, "\n              ")}`,
    );
  }
  lines.push(
    ...toolLines(report.tools),
    ...resourceLines(report.resources, report.resourceTemplates),
    ...promptLines(report.prompts),
  );
  return lines.join("\n");
}

/** "tools(listChanged) resources(subscribe, listChanged) logging". */
function renderCapabilities(capabilities: JsonObject): string {
  return Object.entries(capabilities)
    .map(([name, value]) => {
      const flags =
        value && typeof value === "object"
          ? Object.keys(value).filter((key) => (value as JsonObject)[key] !== false)
          : [];
      const shown = printableLine(name);
      return flags.length > 0 ? `${shown}(${flags.map(printableLine).join(", ")})` : shown;
    })
    .join(" ");
}
