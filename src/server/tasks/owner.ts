import { createRequire } from "node:module";

// Loaded on first use, as in mrtr/request-state.ts: most servers never create a task.
let hashing: typeof import("node:crypto") | undefined;

/**
 * The owner key a task is bound to: a hash of whoever the transport authenticated, "" for no
 * one. Hashed so a shared store never holds tokens or claims, and so equal principals (the
 * same claims in a new object) map to the same key.
 */
export function taskOwner(principal: unknown): string {
  if (principal === undefined || principal === null) return "";
  let text: string;
  try {
    text = typeof principal === "string" ? principal : JSON.stringify(principal);
  } catch {
    text = String(principal);
  }
  hashing ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return hashing.createHash("sha256").update(text).digest("base64url");
}

/** Each legacy session's quota key, made when its first task is. */
const sessionKeys = new WeakMap<object, string>();

/**
 * Whom a new task counts against (TasksOptions.maxTasksPerOwner): the authenticated
 * principal, else the legacy session (`session`: an object that lives as long as it), else
 * one owner shared by every anonymous modern client. A legacy session continued on another
 * instance of a cluster counts there afresh.
 */
export function taskQuotaOwner(principal: unknown, session: object | undefined): string {
  if (principal !== undefined && principal !== null) return `p:${taskOwner(principal)}`;
  if (session === undefined) return "anonymous";
  const known = sessionKeys.get(session);
  if (known !== undefined) return known;
  const key = `s:${globalThis.crypto.randomUUID()}`;
  sessionKeys.set(session, key);
  return key;
}
