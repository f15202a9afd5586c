import { InvalidParamsError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import { base64url, fromBase64url, fromUtf8, utf8 } from "../platform/bytes.js";

/**
 * An ordered, keyed collection of registered features (tools, prompts, resources) that tells
 * listeners when it changes. Iteration order is registration order, so lists are deterministic.
 */
export class Registry<T> {
  private readonly items = new Map<string, T>();
  private readonly onChange: () => void;

  constructor(onChange: () => void) {
    this.onChange = onChange;
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  values(): IterableIterator<T> {
    return this.items.values();
  }

  /** Adds or replaces an entry; returns a function that removes it again. */
  set(key: string, item: T): () => void {
    this.items.set(key, item);
    this.onChange();
    return () => {
      if (this.items.get(key) !== item) return;
      this.items.delete(key);
      this.onChange();
    };
  }
}

/**
 * Cursor pagination over an ordered list. Cursors are opaque to clients (base64 of an offset);
 * a cursor we did not issue is rejected with -32602.
 */
export function paginate<T>(
  all: T[],
  cursor: unknown,
  pageSize: number | undefined,
): { page: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    start = decodeCursor(cursor);
    if (start > all.length) throw new InvalidParamsError("Invalid cursor", { cursor });
  }
  if (!pageSize || start + pageSize >= all.length) return { page: all.slice(start) };
  const end = start + pageSize;
  return { page: all.slice(start, end), nextCursor: encodeCursor(end) };
}

function encodeCursor(offset: number): string {
  return base64url(utf8(`o:${offset}`));
}

function decodeCursor(cursor: unknown): number {
  if (typeof cursor === "string") {
    const bytes = fromBase64url(cursor);
    const match = bytes && /^o:(\d{1,9})$/.exec(fromUtf8(bytes));
    if (match) return Number(match[1]);
  }
  throw new InvalidParamsError("Invalid cursor", { cursor });
}

/** A list result, with `nextCursor` when there is a next page. */
export function withCursor(result: JsonObject, nextCursor: string | undefined): JsonObject {
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return result;
}
