/**
 * Where legacy sessions are looked up by their `Mcp-Session-Id`. Memory by default; the
 * interface is small so that a shared store (with sticky routing of the live streams) can
 * replace it later.
 */

export interface SessionStore<S> {
  get(id: string): S | undefined;
  set(id: string, session: S): void;
  delete(id: string): void;
  /** Every stored session (for idle expiry and shutdown). */
  values(): Iterable<S>;
}

export class InMemorySessionStore<S> implements SessionStore<S> {
  private readonly sessions = new Map<string, S>();

  get(id: string): S | undefined {
    return this.sessions.get(id);
  }

  set(id: string, session: S): void {
    this.sessions.set(id, session);
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  values(): Iterable<S> {
    return [...this.sessions.values()];
  }

  get size(): number {
    return this.sessions.size;
  }
}
