/**
 * Tool (and prompt) visibility: allow and deny by name glob, for everyone, per granted scope or
 * per caller. A hidden tool is absent from `tools/list` and a call to it is refused with the very
 * error an unknown tool gets, before any handler runs: a caller cannot tell hidden from absent.
 */
import { InvalidParamsError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { Middleware, MiddlewareContext } from "../../protocol/middleware.js";
import { type GlobSet, globSet } from "../glob.js";

/** Name rules: with `allow`, only matching names are visible; `deny` hides whatever it matches. */
export interface VisibilityRules {
  allow?: readonly string[];
  deny?: readonly string[];
}

export interface VisibilityOptions extends VisibilityRules {
  /** What the rules govern (default tools only); prompts cover prompts/list, get and completion. */
  features?: readonly ("tools" | "prompts")[];
  /**
   * Scope → the globs it makes visible. When given, a caller sees a name only if one of its
   * granted scopes (`ctx.principal.scopes`, as the HTTP resource server sets it) allows it;
   * a caller with no scopes sees none. Applies on top of allow/deny.
   */
  scopes?: Readonly<Record<string, readonly string[]>>;
  /** Rules for one request's caller (its principal, session, ...), on top of the others. */
  rulesFor?: (ctx: MiddlewareContext) => VisibilityRules | undefined;
  /**
   * The name the globs are matched against, from the name on the wire (default the name
   * itself): a gateway matches `<server>_<tool>` on a server's own endpoint.
   */
  matchAs?: (name: string) => string;
}

type Check = (name: string) => boolean;

function rulesCheck(rules: VisibilityRules): Check {
  const allow = rules.allow === undefined ? undefined : globSet(rules.allow);
  const deny = globSet(rules.deny ?? []);
  return (name) => (allow === undefined || allow(name)) && !deny(name);
}

function grantedScopes(principal: unknown): readonly unknown[] {
  if (typeof principal !== "object" || principal === null) return [];
  const scopes = (principal as { scopes?: unknown }).scopes;
  return Array.isArray(scopes) ? scopes : [];
}

function scopeCheck(scopes: Readonly<Record<string, readonly string[]>>) {
  const byScope = new Map<string, GlobSet>();
  for (const [scope, globs] of Object.entries(scopes)) byScope.set(scope, globSet(globs));
  return (ctx: MiddlewareContext): Check => {
    const sets = grantedScopes(ctx.principal).flatMap((scope) => {
      const set = typeof scope === "string" ? byScope.get(scope) : undefined;
      return set === undefined ? [] : [set];
    });
    return (name) => sets.some((set) => set(name));
  };
}

/** Which list, get and completion shapes a feature has. */
const FEATURES = {
  tools: { list: "tools/list", field: "tools", use: "tools/call", unknown: "Unknown tool" },
  prompts: {
    list: "prompts/list",
    field: "prompts",
    use: "prompts/get",
    unknown: "Unknown prompt",
  },
} as const;

function nameOf(entry: unknown): unknown {
  return typeof entry === "object" && entry !== null
    ? (entry as { name?: unknown }).name
    : undefined;
}

/** The middleware: `server.use(visibility({ deny: ["admin_*"] }))`. */
export function visibility(options: VisibilityOptions): Middleware {
  const fixed = rulesCheck(options);
  const byScope = options.scopes === undefined ? undefined : scopeCheck(options.scopes);
  const { rulesFor } = options;
  const perCaller = byScope !== undefined || rulesFor !== undefined;
  const governed: ReadonlySet<string> = new Set(options.features ?? ["tools"]);
  for (const feature of governed) {
    if (feature !== "tools" && feature !== "prompts") {
      throw new TypeError(`visibility: unknown feature ${feature}`);
    }
  }
  const shapes = (["tools", "prompts"] as const)
    .filter((feature) => governed.has(feature))
    .map((feature) => FEATURES[feature]);

  const matchAs = options.matchAs ?? ((name: string) => name);
  const checkFor = (ctx: MiddlewareContext): Check => {
    const scoped = byScope?.(ctx);
    const extra = rulesFor?.(ctx);
    const own = extra === undefined ? undefined : rulesCheck(extra);
    return (wireName) => {
      const name = matchAs(wireName);
      return fixed(name) && (scoped?.(name) ?? true) && (own?.(name) ?? true);
    };
  };

  return async (ctx, next) => {
    if (ctx.notification) return next();
    for (const shape of shapes) {
      if (ctx.method === shape.use || isPromptCompletion(ctx, shape.use)) {
        const name =
          ctx.method === "completion/complete" ? completionRefName(ctx) : ctx.params.name;
        if (typeof name === "string" && !checkFor(ctx)(name)) {
          throw new InvalidParamsError(`${shape.unknown}: ${name}`, { name });
        }
        return next();
      }
      if (ctx.method === shape.list) {
        const result = await next();
        const entries = result[shape.field];
        if (!Array.isArray(entries)) return result;
        const visible = checkFor(ctx);
        const filtered: JsonObject = Object.assign({}, result, {
          [shape.field]: entries.filter((entry) => {
            const name = nameOf(entry);
            return typeof name === "string" && visible(name);
          }),
        });
        // A list that differs by caller must not be kept in a cache shared between callers.
        if (perCaller && ctx.era === "modern") filtered.cacheScope = "private";
        if (perCaller && ctx.era === "modern" && filtered.ttlMs === undefined) filtered.ttlMs = 0;
        return filtered;
      }
    }
    return next();
  };
}

function isPromptCompletion(ctx: MiddlewareContext, use: string): boolean {
  return use === "prompts/get" && ctx.method === "completion/complete";
}

function completionRefName(ctx: MiddlewareContext): unknown {
  const ref = ctx.params.ref;
  if (typeof ref !== "object" || ref === null) return undefined;
  const { type, name } = ref as { type?: unknown; name?: unknown };
  return type === "ref/prompt" ? name : undefined;
}
