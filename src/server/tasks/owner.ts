import { principalKey } from "../principal-key.js";

/** The owner key a task is bound to: its creator's principalKey ("" for no one). */
export const taskOwner = principalKey;

/** Each legacy session's key, made when first asked for. */
const sessionKeys = new WeakMap<object, string>();

/**
 * A legacy session's key: from its id where it has one that outlives the connection (every
 * instance of a cluster, and a restarted one, derives the same key), hashed so a shared store
 * never holds the id itself (it is what lets an anonymous client use the session); else a
 * random key for as long as the connection lives.
 */
export function legacySessionKey(session: { readonly sessionId?: string }): string {
  const known = sessionKeys.get(session);
  if (known !== undefined) return known;
  const id = session.sessionId;
  const key = `s:${id === undefined ? globalThis.crypto.randomUUID() : taskOwner(`session ${id}`)}`;
  sessionKeys.set(session, key);
  return key;
}

/**
 * Whom a new task counts against (TasksOptions.maxTasksPerOwner): the authenticated
 * principal, else the legacy session (`session`: an object that lives as long as it), else
 * one owner shared by every anonymous modern client.
 */
export function taskQuotaOwner(
  principal: unknown,
  session: { readonly sessionId?: string } | undefined,
): string {
  if (principal !== undefined && principal !== null) return `p:${taskOwner(principal)}`;
  if (session === undefined) return "anonymous";
  return legacySessionKey(session);
}
