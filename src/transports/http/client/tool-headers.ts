/**
 * What the transport learns from `tools/list` results passing through it: which arguments of
 * each tool are mirrored into `Mcp-Param-*` headers. Tools with invalid `x-mcp-header`
 * annotations are dropped from the result the application sees (2026-07-28
 * streamable-http.mdx, "Schema Extension": clients MUST exclude them, SHOULD warn).
 */
import type { JsonObject } from "../../../jsonrpc/types.js";
import { paramHeadersFor } from "../../../protocol/header-annotations.js";
import { checkToolHeaders } from "./mcp-headers-out.js";

export class ToolHeaderRegistry {
  /** Tool name → its (valid) inputSchema. */
  private readonly byTool = new Map<string, unknown>();
  private readonly warn: (message: string) => void;

  constructor(warn: (message: string) => void, seed?: Record<string, unknown>) {
    this.warn = warn;
    for (const [name, inputSchema] of Object.entries(seed ?? {})) {
      const check = checkToolHeaders(inputSchema);
      if (check.ok) this.byTool.set(name, inputSchema);
      else warn(`tool "${name}": ${check.reason}`);
    }
  }

  /** Records every valid tool; returns the result without the invalid ones. */
  learn(result: JsonObject): JsonObject {
    if (!Array.isArray(result.tools)) return result;
    const kept: unknown[] = [];
    for (const tool of result.tools as unknown[]) {
      const name = (tool as JsonObject | null)?.name;
      if (typeof name !== "string") {
        kept.push(tool);
        continue;
      }
      const check = checkToolHeaders((tool as JsonObject).inputSchema);
      if (check.ok) {
        this.byTool.set(name, (tool as JsonObject).inputSchema);
        kept.push(tool);
      } else {
        this.byTool.delete(name);
        this.warn(`dropping tool "${name}" from tools/list: ${check.reason}`);
      }
    }
    return kept.length === result.tools.length ? result : { ...result, tools: kept };
  }

  /** `Mcp-Param-*` headers for a tools/call of `name` with `args`. */
  headersFor(name: unknown, args: unknown): Record<string, string> {
    const schema = typeof name === "string" ? this.byTool.get(name) : undefined;
    return schema === undefined ? {} : paramHeadersFor(schema, args);
  }
}
