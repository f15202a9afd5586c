/**
 * The gateway's access rules and audit trail, as middleware on each server it offers:
 * `--allow-tools` / `--deny-tools` (globs on `<server><separator><tool>` when it serves several
 * servers, on the tool's own name otherwise) and `--audit-log FILE` (one line per tool call,
 * naming the server; arguments only with `--audit-arguments`).
 */
import { type AuditFile, audit, auditFile, visibility } from "../../middleware/index.js";
import type { McpServer } from "../../server/mcp-server.js";
import type { OptionKind, ParsedArgs } from "../core/args.js";
import { UsageError } from "../core/errors.js";

export const GOVERNANCE_OPTIONS: Record<string, OptionKind> = {
  "allow-tools": "list",
  "deny-tools": "list",
  "audit-log": "value",
  "audit-arguments": "flag",
};

export const GOVERNANCE_USAGE = `  --allow-tools <glob>     only tools matching it are offered and callable (repeatable; * any run,
                           ? one character; on <server>_<tool> with several servers)
  --deny-tools <glob>      tools matching it are hidden and refused as unknown (repeatable)
  --audit-log <file>       append one JSON line per tool call (time, principal, server, tool,
                           duration, outcome); arguments only with --audit-arguments`;

export interface Governance {
  /** Adds the rules and the audit trail to the server offering `serverName` (if any). */
  apply(server: McpServer, serverName: string | undefined): void;
  close(): Promise<void>;
}

export function governance(
  options: ParsedArgs["options"],
  separator: string,
  report: (line: string) => void,
): Governance {
  const allow = options["allow-tools"] as string[] | undefined;
  const deny = options["deny-tools"] as string[] | undefined;
  for (const glob of [...(allow ?? []), ...(deny ?? [])]) {
    if (glob.length === 0) throw new UsageError("--allow-tools and --deny-tools need a glob");
  }
  const path = options["audit-log"] as string | undefined;
  if (options["audit-arguments"] === true && path === undefined) {
    throw new UsageError("--audit-arguments goes with --audit-log <file>");
  }
  const file: AuditFile | undefined =
    path === undefined
      ? undefined
      : auditFile(path, (error) => report(`mcpwire gateway: audit log ${path}: ${error.message}`));
  return {
    apply(server, serverName) {
      // Audit outermost: a call refused by the rules is recorded too.
      if (file !== undefined) {
        server.use(
          audit({
            write: file.write,
            methods: ["tools/call"],
            arguments: options["audit-arguments"] === true,
            ...(serverName === undefined ? {} : { labels: { server: serverName } }),
          }),
        );
      }
      if (allow !== undefined || deny !== undefined) {
        const prefix = serverName === undefined ? "" : `${serverName}${separator}`;
        server.use(
          visibility({
            ...(allow === undefined ? {} : { allow }),
            ...(deny === undefined ? {} : { deny }),
            matchAs: (name) => prefix + name,
          }),
        );
      }
    },
    close: async () => {
      await file?.close();
    },
  };
}
