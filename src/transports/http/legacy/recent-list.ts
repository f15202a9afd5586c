/**
 * Values by string key, from least to most recently used: the LRU order of the legacy session
 * table and of the event store's streams. Not a Map: on Node 20 a long-lived Map whose entries
 * keep coming and going (a stream per SSE answer; a session moved to the end per request)
 * rehashes its table in old space, and every discarded table keeps the values it listed alive
 * through scavenges until the next full GC (bench/RESULTS.md, R6). Here the keys live in a
 * null-prototype object, whose small dictionary is made in the young generation and changes
 * only when a key comes or goes, and the order is a list through the entries, so a use moves
 * two pointers and allocates nothing.
 */

interface Entry<V> {
  readonly key: string;
  value: V | undefined;
  older: Entry<V> | undefined;
  newer: Entry<V> | undefined;
}

export class RecentList<V> {
  private readonly byKey: Record<string, Entry<V>> = Object.create(null);
  private oldestEntry: Entry<V> | undefined;
  private newestEntry: Entry<V> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    return this.byKey[key]?.value;
  }

  /** Sets the value of `key`, which becomes the most recently used. */
  set(key: string, value: V): void {
    let entry = this.byKey[key];
    if (entry === undefined) {
      entry = { key, value, older: undefined, newer: undefined };
      this.byKey[key] = entry;
      this.count++;
    } else {
      entry.value = value;
      if (entry === this.newestEntry) return;
      this.unlink(entry);
    }
    entry.older = this.newestEntry;
    if (this.newestEntry) this.newestEntry.newer = entry;
    else this.oldestEntry = entry;
    this.newestEntry = entry;
  }

  /** Makes `key` the most recently used; false when it is not here. */
  touch(key: string): boolean {
    const entry = this.byKey[key];
    if (entry === undefined) return false;
    this.set(key, entry.value as V);
    return true;
  }

  /** Takes `key` out; its value, or undefined when it was not here. */
  delete(key: string): V | undefined {
    const entry = this.byKey[key];
    if (entry === undefined) return undefined;
    delete this.byKey[key];
    this.count--;
    this.unlink(entry);
    const { value } = entry;
    // A dropped entry may sit in old space: it must not keep a young value alive (see above).
    entry.value = undefined;
    return value;
  }

  /** The least recently used key, if any. */
  oldest(): string | undefined {
    return this.oldestEntry?.key;
  }

  /** The values, least recently used first; the list must not change while they are read. */
  *values(): IterableIterator<V> {
    for (let entry = this.oldestEntry; entry; entry = entry.newer) yield entry.value as V;
  }

  private unlink(entry: Entry<V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldestEntry = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newestEntry = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }
}
