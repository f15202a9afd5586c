import type { JsonRpcId } from "../jsonrpc/types.js";

/**
 * Entries by JSON-RPC id (or any number), for tables whose entries keep coming and going, such as
 * requests in flight. Not a Map: a long-lived Map that churns rehashes its table in old space
 * every few dozen entries, and each table it discards keeps the entries it listed alive through
 * scavenges until the next mark-compact, with everything they reach. At 64 calls in flight that
 * promoted nearly every call of the gateway (~1.7 MB a scavenge, Node 20; bench/RESULTS.md).
 * Null-prototype objects keep their small tables in the young generation; numbers and strings
 * are kept apart, so id 1 and id "1" stay two requests, as JSON-RPC says.
 */
export class IdTable<V> {
  private readonly numbers: Record<number, V> = Object.create(null);
  private strings: Record<string, V> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: JsonRpcId): V | undefined {
    return typeof id === "number" ? this.numbers[id] : this.strings?.[id];
  }

  has(id: JsonRpcId): boolean {
    return this.get(id) !== undefined;
  }

  /** Adds or replaces the entry of `id`. */
  set(id: JsonRpcId, value: V): void {
    const bucket = this.bucketFor(id);
    if (bucket[id] === undefined) this.count += 1;
    bucket[id] = value;
  }

  delete(id: JsonRpcId): boolean {
    const bucket: Record<string | number, V> | undefined =
      typeof id === "number" ? this.numbers : this.strings;
    if (bucket?.[id] === undefined) return false;
    delete bucket[id];
    this.count -= 1;
    return true;
  }

  /** The entries now, as a copy: safe to change the table while going through it. */
  values(): V[] {
    const all = Object.values(this.numbers);
    if (this.strings) all.push(...Object.values(this.strings));
    return all;
  }

  private bucketFor(id: JsonRpcId): Record<string | number, V> {
    if (typeof id === "number") return this.numbers;
    this.strings ??= Object.create(null) as Record<string, V>;
    return this.strings;
  }
}
