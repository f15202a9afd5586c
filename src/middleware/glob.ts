/**
 * Name globs for access rules: `*` matches any run of characters (none included), `?` exactly
 * one, every other character only itself. A glob matches the whole name, never a part of it.
 * Nothing else is special, so a rule written as a tool name never turns into a pattern by
 * accident.
 *
 * Matching is the two-cursor wildcard walk (back up to the last `*` only), so it takes at most
 * glob × name steps: a name chosen by a hostile peer cannot make it backtrack exponentially, as
 * a regular expression with several `*` could.
 */

/** A compiled set of globs: does a name match any of them? */
export type GlobSet = (name: string) => boolean;

function matches(glob: readonly string[], name: readonly string[]): boolean {
  let g = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (g < glob.length && (glob[g] === "?" || (glob[g] !== "*" && glob[g] === name[n]))) {
      g++;
      n++;
    } else if (g < glob.length && glob[g] === "*") {
      star = g++;
      resume = n;
    } else if (star >= 0) {
      g = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}

/** One matcher for a list of globs; an empty list matches nothing. */
export function globSet(globs: readonly string[]): GlobSet {
  for (const glob of globs) {
    if (typeof glob !== "string" || glob.length === 0) {
      throw new TypeError("a name glob must be a non-empty string");
    }
  }
  const exact = new Set(globs.filter((glob) => !/[*?]/.test(glob)));
  // Code points, so that `?` is one character whatever its UTF-16 length.
  const patterns = globs.filter((glob) => /[*?]/.test(glob)).map((glob) => Array.from(glob));
  if (patterns.length === 0) return (name) => exact.has(name);
  return (name) => {
    if (exact.has(name)) return true;
    const chars = Array.from(name);
    return patterns.some((pattern) => matches(pattern, chars));
  };
}
