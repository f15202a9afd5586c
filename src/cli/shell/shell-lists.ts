/** The shell's `tools`, `resources` and `prompts`: the server's lists, as JSON and as text. */
import type { McpClient } from "../../client/index.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { promptLines, resourceLines, toolLines } from "../verbs/list-lines.js";

export type ListKind = "tools" | "resources" | "prompts";

export async function listOf(
  client: McpClient,
  kind: ListKind,
  signal: AbortSignal,
): Promise<{ found: JsonObject; text: string }> {
  const options = { signal };
  // As discover does: a list the capabilities do not offer is not asked for (it would be -32601).
  const capabilities = (client.serverCapabilities ?? {}) as JsonObject;
  if (capabilities[kind] === undefined) {
    return { found: { [kind]: [] }, text: `the server offers no ${kind}` };
  }
  let found: JsonObject;
  let lines: string[];
  if (kind === "tools") {
    const tools = await client.listAllTools(options);
    found = { tools };
    lines = toolLines(tools);
  } else if (kind === "prompts") {
    const prompts = await client.listAllPrompts(options);
    found = { prompts };
    lines = promptLines(prompts);
  } else {
    const resources = await client.listAllResources(options);
    const resourceTemplates = await client.listAllResourceTemplates(options);
    found = { resources, resourceTemplates };
    lines = resourceLines(resources, resourceTemplates);
  }
  // Without the blank line that starts a section of discover's report.
  return { found, text: lines.length === 0 ? `no ${kind}` : lines.slice(1).join("\n") };
}
