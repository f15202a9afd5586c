/**
 * The gateway's access rules and audit trail, as middleware on each server it offers:
 * `--allow-tools` / `--deny-tools` (globs on `<server><separator><tool>` when it serves several
 * servers, on the tool's own name otherwise) and `--audit-log FILE` (one line per tool call,
 * naming the server; arguments only with `--audit-arguments`), then the limits of
 * gateway-limits.ts (`--rate-limit`, `--max-result-bytes`). Redis, if any, is the caller's.
 */

import { readFileSync } from "node:fs";
import { isPlainObject } from "../../jsonrpc/errors.js";
import { type AuditFile, audit, auditFile, visibility } from "../../middleware/index.js";
import type { McpServerBase } from "../../server/mcp-server.js";
import { printableLine } from "../../text/printable.js";
import type { OptionKind, ParsedArgs } from "../core/args.js";
import { UsageError } from "../core/errors.js";
import { gatewayLimits, LIMIT_OPTIONS, LIMIT_USAGE } from "./gateway-limits.js";
import type { GatewayRedis } from "./gateway-redis.js";

export const GOVERNANCE_OPTIONS: Record<string, OptionKind> = {
  "allow-tools": "list",
  "deny-tools": "list",
  "audit-log": "value",
  "audit-arguments": "flag",
  "tool-scopes": "value",
  ...LIMIT_OPTIONS,
};

export const GOVERNANCE_USAGE = `  --allow-tools <glob>     only tools matching it are offered and callable (repeatable; * any run,
                           ? one character; on <server>_<tool> with several servers)
  --deny-tools <glob>      tools matching it are hidden and refused as unknown (repeatable)
  --tool-scopes <file>     with --auth-issuer: a JSON object mapping each scope to the tool globs it
                           shows ({"files:read": ["files_read_*"], "admin": ["*"]}); a caller
                           sees a tool only when one of its token's scopes allows it
  --audit-log <file>       append one JSON line per tool call (time, principal, server, tool,
                           duration, outcome); arguments only with --audit-arguments
${LIMIT_USAGE}`;

export interface Governance {
  /** Adds the rules, the audit trail and the limits to the server offering `serverName` (if any). */
  apply(server: McpServerBase, serverName: string | undefined): void;
  close(): Promise<void>;
}

/** The flags checked (usage errors first), then the audit log opened. */
export async function governance(
  options: ParsedArgs["options"],
  separator: string,
  redis: GatewayRedis | undefined,
  report: (line: string) => void,
): Promise<Governance> {
  const allow = options["allow-tools"] as string[] | undefined;
  const deny = options["deny-tools"] as string[] | undefined;
  for (const glob of [...(allow ?? []), ...(deny ?? [])]) {
    if (glob.length === 0) throw new UsageError("--allow-tools and --deny-tools need a glob");
  }
  const scopes = toolScopes(options);
  const path = options["audit-log"] as string | undefined;
  if (options["audit-arguments"] === true && path === undefined) {
    throw new UsageError("--audit-arguments goes with --audit-log <file>");
  }
  const limits = await gatewayLimits(options, redis, report);
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
      if (allow !== undefined || deny !== undefined || scopes !== undefined) {
        const prefix = serverName === undefined ? "" : `${serverName}${separator}`;
        server.use(
          visibility({
            ...(allow === undefined ? {} : { allow }),
            ...(deny === undefined ? {} : { deny }),
            ...(scopes === undefined ? {} : { scopes }),
            matchAs: (name) => prefix + name,
          }),
        );
      }
      // Only what the rules let through is counted and measured.
      for (const { method, middleware } of limits.middleware) {
        if (method === undefined) server.use(middleware);
        else server.use(method, middleware);
      }
    },
    close: async () => {
      await file?.close();
    },
  };
}

/** `--tool-scopes FILE`: scope → tool globs, checked before anything starts. */
function toolScopes(options: ParsedArgs["options"]): Record<string, string[]> | undefined {
  const path = options["tool-scopes"] as string | undefined;
  if (path === undefined) return undefined;
  if (options["auth-issuer"] === undefined) {
    throw new UsageError("--tool-scopes needs --auth-issuer: the scopes are an access token's");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(
      `--tool-scopes ${printableLine(path)}: ${printableLine((error as Error).message)}`,
    );
  }
  const valid =
    isPlainObject(parsed) &&
    Object.values(parsed).every(
      (globs) =>
        Array.isArray(globs) && globs.every((glob) => typeof glob === "string" && glob !== ""),
    );
  if (!valid) {
    throw new UsageError(
      `--tool-scopes ${printableLine(path)}: expected an object mapping each scope to an array of tool globs`,
    );
  }
  return parsed as Record<string, string[]>;
}
