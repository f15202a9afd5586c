/**
 * A TokenStore in one JSON file, for the CLI: tokens per resource and registrations per issuer
 * in `<dir>/tokens.json`, the file 0600 and the directory 0700 (they hold refresh tokens and
 * client secrets). Every change is a read-modify-write under a lock file, so two processes
 * (two `mcpwire call`s refreshing at once) never drop each other's entries; the new content is
 * written to a temporary file and renamed over the old, so a reader sees the old file or the
 * new one, never half of either. Reads take no lock and always read the file afresh.
 *
 * Default directory: $MCPWIRE_HOME, else $XDG_CONFIG_HOME/mcpwire, else ~/.config/mcpwire.
 */
import { open, readFile, stat, unlink } from "node:fs/promises";
import { homedir, hostname } from "node:os";
import { dirname, join } from "node:path";
import { ignoring } from "../text/ignored-error.js";
import {
  ensureDirectory as ensureTrustedDirectory,
  readIfExists,
  writeFileAtomic,
} from "../transports/http/legacy/store-files.js";
import type { StoredClient, StoredTokens, TokenStore } from "./token-store.js";

/** A lock held longer than this belongs to a process that is gone or hung. */
const STALE_LOCK_MS = 30_000;
/** How long to wait for another process's lock on the file before giving up. */
const LOCK_WAIT_MS = 10_000;
/** How long to wait for another process's renewal (it waits on a token endpoint). */
const EXCLUSIVE_WAIT_MS = 60_000;
/** What a stored client's `source` may say. */
const CLIENT_SOURCES = ["pre-registered", "metadata-document", "registered"];

interface StoreFile {
  version: 1;
  tokens: Record<string, StoredTokens>;
  clients: Record<string, StoredClient>;
  /** Pre-registered client id → the issuer its credentials belong to (absent in older files). */
  clientIssuers?: Record<string, string>;
}

/** The token store file is unreadable (not JSON, not ours) or cannot be locked or written. */
export class TokenStoreError extends Error {
  override name = "TokenStoreError";
}

/** The directory mcpwire keeps its state in (see the header comment). */
export function mcpwireHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCPWIRE_HOME) return env.MCPWIRE_HOME;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, "mcpwire");
  return join(homedir(), ".config", "mcpwire");
}

export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(mcpwireHome(env), "tokens.json");
}

export class FileTokenStore implements TokenStore {
  readonly file: string;

  constructor(file: string = defaultTokenFile()) {
    this.file = file;
  }

  async getTokens(resource: string): Promise<StoredTokens | undefined> {
    return own((await this.read()).tokens, resource);
  }
  async setTokens(resource: string, tokens: StoredTokens): Promise<void> {
    await this.change((data) => {
      data.tokens[resource] = tokens;
    });
  }
  async deleteTokens(resource: string): Promise<void> {
    await this.change((data) => {
      delete data.tokens[resource];
    });
  }
  async getClient(issuer: string): Promise<StoredClient | undefined> {
    return own((await this.read()).clients, issuer);
  }
  async setClient(issuer: string, client: StoredClient): Promise<void> {
    await this.change((data) => {
      data.clients[issuer] = client;
    });
  }
  async deleteClient(issuer: string): Promise<void> {
    await this.change((data) => {
      delete data.clients[issuer];
    });
  }

  /**
   * Deletes a resource's tokens only while they are still `accessToken`: a process whose refresh
   * failed must not delete the tokens another process has just stored.
   */
  async deleteTokensIf(resource: string, accessToken: string | undefined): Promise<void> {
    await this.change((data) => {
      if (own(data.tokens, resource)?.accessToken === accessToken) delete data.tokens[resource];
    });
  }

  /**
   * Runs `body` while no other process runs its own (a lock of its own, apart from the file's):
   * for renewing tokens one process at a time, each starting from what the last one stored.
   */
  async exclusive<T>(body: () => Promise<T>): Promise<T> {
    return this.locked(body, `${this.file}.renew.lock`, EXCLUSIVE_WAIT_MS);
  }

  /**
   * The issuer a pre-registered client id is bound to: the one recorded, else `issuer`, which
   * is recorded (the first one used). `replace`: record `issuer` whatever was there.
   */
  async bindClient(clientId: string, issuer: string, replace = false): Promise<string> {
    const recorded = own((await this.read()).clientIssuers ?? {}, clientId);
    if (recorded === issuer || (recorded !== undefined && !replace)) return recorded;
    let bound = issuer;
    await this.change((data) => {
      data.clientIssuers ??= {};
      const recorded = own(data.clientIssuers, clientId);
      if (recorded !== undefined && !replace) bound = recorded;
      else data.clientIssuers[clientId] = issuer;
    });
    return bound;
  }

  /** The registrations per issuer and the pre-registered clients' issuers. */
  async clients(): Promise<{
    clients: [string, StoredClient][];
    clientIssuers: [string, string][];
  }> {
    const data = await this.read();
    const sorted = <T>(record: Record<string, T>) =>
      Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
    return { clients: sorted(data.clients), clientIssuers: sorted(data.clientIssuers ?? {}) };
  }

  /** Forgets the registration at `issuer` and every client id bound to it. */
  async forgetIssuer(issuer: string): Promise<void> {
    await this.change((data) => {
      delete data.clients[issuer];
      for (const [clientId, bound] of Object.entries(data.clientIssuers ?? {})) {
        if (bound === issuer) delete data.clientIssuers?.[clientId];
      }
    });
  }

  /** Every resource that has tokens, sorted by URL. */
  async resources(): Promise<[string, StoredTokens][]> {
    return Object.entries((await this.read()).tokens).sort(([a], [b]) => a.localeCompare(b));
  }

  /** Forgets every token and registration: the file is removed (even when unreadable). */
  async clear(): Promise<void> {
    await this.locked(async () => {
      await unlink(this.file).catch(ignoreMissing);
    });
  }

  // ---- file --------------------------------------------------------------------------------

  private async read(): Promise<StoreFile> {
    let text: string | undefined;
    try {
      // Never through a symbolic link someone planted there.
      text = readIfExists(this.file);
    } catch (error) {
      throw new TokenStoreError(
        `cannot read the token file ${this.file}: ${(error as Error).message}`,
      );
    }
    return text === undefined ? empty() : parseStore(text, this.file);
  }

  private async change(edit: (data: StoreFile) => void): Promise<void> {
    await this.locked(async () => {
      const data = await this.read();
      edit(data);
      this.write(data);
    });
  }

  private write(data: StoreFile): void {
    try {
      // A fresh 0600 file renamed over the old one: readers see the old or the new, whole.
      writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`);
    } catch (error) {
      throw new TokenStoreError(
        `cannot write the token file ${this.file}: ${(error as Error).message}`,
      );
    }
  }

  /** Runs `body` holding `lock` (created with O_EXCL; a dead holder's lock is taken over). */
  private async locked<T>(
    body: () => Promise<T>,
    lock = `${this.file}.lock`,
    waitMs = LOCK_WAIT_MS,
  ): Promise<T> {
    await ensureDirectory(dirname(this.file));
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        const handle = await open(lock, "wx", 0o600);
        await handle.writeFile(`${process.pid} ${hostname()}`);
        await handle.close();
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
          throw new TokenStoreError(`cannot lock ${lock}: ${(error as Error).message}`);
        }
      }
      const holder = await lockHolder(lock);
      if (holder === "released") continue;
      if (holder === "stale") {
        // Between our look and this unlink another process could take over the same stale
        // lock; only a crashed holder leads here, and the window is a few microseconds.
        await unlink(lock).catch(ignoreMissing);
        continue;
      }
      if (Date.now() > deadline) {
        throw new TokenStoreError(
          `${lock} is held by another process; remove it if no mcpwire is running`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    }
    try {
      return await body();
    } finally {
      await unlink(lock).catch(ignoring("removing the token file's lock"));
    }
  }
}

function empty(): StoreFile {
  return { version: 1, tokens: {}, clients: {} };
}

function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The file's content checked for the shape we write; anything else is a clear error. */
function parseStore(text: string, file: string): StoreFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TokenStoreError(
      `the token file ${file} is not valid JSON: fix or remove it (mcpwire auth logout removes it)`,
    );
  }
  const data = value as Partial<StoreFile> | null;
  const isRecord = (item: unknown): item is Record<string, unknown> =>
    typeof item === "object" && item !== null && !Array.isArray(item);
  if (
    !isRecord(data) ||
    data.version !== 1 ||
    !isRecord(data.tokens) ||
    !isRecord(data.clients) ||
    !Object.values(data.tokens).every(
      (t) => isRecord(t) && typeof t.accessToken === "string" && typeof t.issuer === "string",
    ) ||
    !Object.values(data.clients).every(
      (c) =>
        isRecord(c) &&
        typeof c.clientId === "string" &&
        (c.source === undefined || CLIENT_SOURCES.includes(c.source as string)),
    ) ||
    (data.clientIssuers !== undefined &&
      (!isRecord(data.clientIssuers) ||
        !Object.values(data.clientIssuers).every((issuer) => typeof issuer === "string")))
  ) {
    throw new TokenStoreError(
      `the token file ${file} is not an mcpwire token file (version 1): fix or remove it (mcpwire auth logout removes it)`,
    );
  }
  // Parsed objects have Object.prototype: entries are read with Object.hasOwn (see `own`).
  return data as StoreFile;
}

/**
 * "stale": its holder is gone (same host, no such process) or it is simply too old;
 * "released": it vanished meanwhile (try again; never unlink then, it may be a new holder's).
 */
async function lockHolder(lock: string): Promise<"held" | "stale" | "released"> {
  try {
    const [text, info] = await Promise.all([readFile(lock, "utf8"), stat(lock)]);
    const [pid, host] = text.split(" ");
    if (host === hostname() && pid !== undefined && !alive(Number(pid))) return "stale";
    return Date.now() - info.mtimeMs > STALE_LOCK_MS ? "stale" : "held";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "released";
    throw new TokenStoreError(`cannot read the lock ${lock}: ${(error as Error).message}`);
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Creates the directory 0700; one that exists must be ours, not a symbolic link, and writable
 * by nobody else (the store-files checks every file store shares).
 */
async function ensureDirectory(directory: string): Promise<void> {
  try {
    ensureTrustedDirectory(directory);
  } catch (error) {
    throw new TokenStoreError((error as Error).message);
  }
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}
