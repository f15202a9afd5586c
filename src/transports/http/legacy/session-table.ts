/**
 * The accounting behind the legacy session limits: how many sessions this handler holds, in
 * which order they were last used, and whose they are. One client must not be able to fill the
 * table and lock everyone else out, so when it is full a new `initialize` makes room by ending
 * the least recently used idle session (half-open ones, which never sent
 * `notifications/initialized`, first), and an owner at its own cap makes room among its own.
 */
import { RecentList } from "./recent-list.js";

/** What the table needs to know of a session. */
interface TabledSession {
  readonly id: string;
  /** Streams open or requests in flight: never evicted. */
  readonly busy: boolean;
  /** `notifications/initialized` has arrived. */
  readonly initialized: boolean;
  /** The per-owner key (sessionOwner), if any. */
  readonly owner: string | undefined;
  readonly lastSeen: number;
}

export type Room<S> = { ok: true; evicted: S[] } | { ok: false; reason: "full" | "owner-full" };

export class SessionTable<S extends TabledSession> {
  private readonly maxSessions: number;
  private readonly maxPerOwner: number;
  /**
   * Sessions in least-recently-used order, half-open ones apart so that they are the first to
   * go. RecentLists, not Maps: with a Map, a delete and a set per request (64 sessions taking
   * turns) rehashed its table in old space (bench/RESULTS.md, R3 and R6).
   */
  private readonly halfOpen = new RecentList<S>();
  private readonly open = new RecentList<S>();
  private readonly owners = new Map<string, Set<S>>();

  constructor(maxSessions: number, maxPerOwner: number) {
    this.maxSessions = maxSessions;
    this.maxPerOwner = maxPerOwner;
  }

  get size(): number {
    return this.halfOpen.size + this.open.size;
  }

  add(session: S): void {
    this.file(session);
    if (session.owner === undefined) return;
    let mine = this.owners.get(session.owner);
    if (!mine) {
      mine = new Set();
      this.owners.set(session.owner, mine);
    }
    mine.add(session);
  }

  /** The session was just used: it becomes the most recently used (and may now be initialized). */
  used(session: S): void {
    if ((session.initialized ? this.open : this.halfOpen).touch(session.id)) return;
    // Initialized since its last use: it moves to the other list.
    if (this.halfOpen.delete(session.id) === undefined) return;
    this.file(session);
  }

  /** Puts the session at the end of its list. */
  private file(session: S): void {
    (session.initialized ? this.open : this.halfOpen).set(session.id, session);
  }

  remove(session: S): void {
    if (this.halfOpen.get(session.id) === session) this.halfOpen.delete(session.id);
    else if (this.open.get(session.id) === session) this.open.delete(session.id);
    else return;
    if (session.owner === undefined) return;
    const mine = this.owners.get(session.owner);
    mine?.delete(session);
    if (mine?.size === 0) this.owners.delete(session.owner);
  }

  /**
   * Room for one more session of `owner`: the sessions to end for it (taken out of the table
   * already), or why there is none (every candidate is busy).
   */
  makeRoom(owner: string | undefined): Room<S> {
    const evicted: S[] = [];
    const mine = owner === undefined ? undefined : this.owners.get(owner);
    if (mine && mine.size >= this.maxPerOwner) {
      const victim = oldestIdle(mine.values());
      if (!victim) return { ok: false, reason: "owner-full" };
      this.remove(victim);
      evicted.push(victim);
    }
    if (this.size >= this.maxSessions) {
      const victim = firstIdle(this.halfOpen.values()) ?? firstIdle(this.open.values());
      if (!victim) return { ok: false, reason: "full" };
      this.remove(victim);
      evicted.push(victim);
    }
    return { ok: true, evicted };
  }
}

/** The first idle session of an LRU-ordered list. */
function firstIdle<S extends TabledSession>(sessions: Iterable<S>): S | undefined {
  for (const session of sessions) if (!session.busy) return session;
  return undefined;
}

/** The idle session used longest ago, of an unordered (and small: one owner's) set. */
function oldestIdle<S extends TabledSession>(sessions: Iterable<S>): S | undefined {
  let oldest: S | undefined;
  for (const session of sessions) {
    if (session.busy) continue;
    if (!oldest || session.lastSeen < oldest.lastSeen) oldest = session;
  }
  return oldest;
}
