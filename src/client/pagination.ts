import type { Paginated } from "./types.js";

/** Upper bound on pages followed by the list-everything helpers. */
export const MAX_PAGES = 1000;

/**
 * Follows `nextCursor` from the first page to the last, concatenating `items(page)`. An empty
 * string is a valid cursor; only an absent one ends the list. A cursor seen before means the
 * server is going round in circles, which would otherwise never end.
 */
export async function collectPages<Page extends Paginated, Item>(
  what: string,
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  items: (page: Page) => Item[] | undefined,
  maxPages = MAX_PAGES,
): Promise<Item[]> {
  const all: Item[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await fetchPage(cursor);
    all.push(...(items(page) ?? []));
    const next = page.nextCursor;
    if (next === undefined || next === null) return all;
    if (typeof next !== "string") throw new Error(`${what}: nextCursor is not a string`);
    if (seen.has(next)) {
      throw new Error(`${what}: the server repeated cursor ${JSON.stringify(next)}; stopping`);
    }
    seen.add(next);
    cursor = next;
  }
  throw new Error(`${what}: more than ${maxPages} pages; stopping`);
}
