/**
 * A server's tools, resources (and templates) and prompts as aligned text lines, for discover's
 * report and the shell's tools/resources/prompts. Everything the server sent is made printable.
 */
import type { JsonObject } from "../../jsonrpc/types.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "../../protocol/mcp-types.js";
import { printableLine } from "../../text/printable.js";

export function toolLines(tools: Tool[]): string[] {
  return section("tools", tools, (tool) => {
    const args = argumentList(tool.inputSchema as JsonObject | undefined);
    return [
      line(tool.name),
      [optional(tool.description), args && `args: ${args}`].filter(Boolean).join("  "),
    ];
  });
}

export function resourceLines(resources: Resource[], templates: ResourceTemplate[]): string[] {
  return [
    ...section("resources", resources, (resource) => [
      line(resource.uri),
      [
        optional(resource.title ?? resource.name),
        resource.mimeType && `(${line(resource.mimeType)})`,
      ]
        .filter(Boolean)
        .join(" "),
    ]),
    ...section("resource templates", templates, (template) => [
      line(template.uriTemplate),
      [optional(template.title ?? template.name), optional(template.description)]
        .filter(Boolean)
        .join(" — "),
    ]),
  ];
}

export function promptLines(prompts: Prompt[]): string[] {
  return section("prompts", prompts, (prompt) => {
    const args = (prompt.arguments ?? [])
      .map((argument) => `${line(argument.name)}${argument.required ? "*" : ""}`)
      .join(", ");
    return [
      line(prompt.name),
      [optional(prompt.description), args && `args: ${args}`].filter(Boolean).join("  "),
    ];
  });
}

/** A blank line, "title (count)", then one aligned row per item; nothing for no items. */
function section<T>(
  title: string,
  items: T[],
  row: (item: T) => [string, string | undefined],
): string[] {
  if (items.length === 0) return [];
  const lines = ["", `${title} (${items.length})`];
  const rows = items.map(row);
  const width = Math.min(40, Math.max(...rows.map(([name]) => name.length)));
  for (const [name, detail] of rows) {
    lines.push(detail ? `  ${name.padEnd(width)}  ${detail}` : `  ${name}`);
  }
  return lines;
}

/** A server's field on one line, printable (a hostile server may send a non-string). */
function line(value: unknown): string {
  return printableLine(String(value));
}

function optional(value: unknown): string | undefined {
  return value === undefined ? undefined : line(value);
}

/** A tool's arguments from its input schema: required ones marked with `*`. */
function argumentList(schema: JsonObject | undefined): string {
  const properties = schema?.properties;
  if (!properties || typeof properties !== "object") return "";
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.keys(properties)
    .map((name) => `${line(name)}${required.has(name) ? "*" : ""}`)
    .join(", ");
}
