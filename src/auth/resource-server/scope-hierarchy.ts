/**
 * Scope hierarchies (2026-07-28 authorization: a server MUST account for a broader scope
 * implying narrower ones): which scopes a granted scope implies, as a table or a function.
 * A verifier widens a token's granted scopes once, when the token is checked, so the scope
 * checks on every request stay plain membership tests. Without a hierarchy, matching is exact.
 */

/**
 * What each scope implies: `{ files: ["files:read", "files:write"] }`, or a function from a
 * scope to the scopes it implies. Implication is followed transitively.
 */
export type ScopeHierarchy =
  | Readonly<Record<string, readonly string[]>>
  | ((scope: string) => readonly string[]);

/** No token is widened beyond this many scopes (a function could imply without end). */
const MAX_SCOPES = 1_000;

/** A function from a scope to what it implies; a table becomes a Map (no prototype keys). */
export function impliedScopesOf(
  hierarchy: ScopeHierarchy | undefined,
): ((scope: string) => readonly string[]) | undefined {
  if (hierarchy === undefined || typeof hierarchy === "function") return hierarchy;
  const table = new Map(Object.entries(hierarchy));
  return (scope) => table.get(scope) ?? [];
}

/** The granted scopes and every scope they imply, each once, the granted ones first. */
export function withImpliedScopes(
  granted: readonly string[],
  implies: ((scope: string) => readonly string[]) | undefined,
): readonly string[] {
  if (implies === undefined) return granted;
  const all = new Set(granted);
  const pending = [...all];
  for (let scope = pending.pop(); scope !== undefined; scope = pending.pop()) {
    for (const implied of implies(scope)) {
      if (typeof implied !== "string" || all.has(implied)) continue;
      if (all.size >= MAX_SCOPES) {
        throw new Error(`the scope hierarchy implies over ${MAX_SCOPES} scopes`);
      }
      all.add(implied);
      pending.push(implied);
    }
  }
  return [...all];
}
