/**
 * The web build's file token store: no file system in workerd or a page. A client there keeps
 * tokens in a TokenStore of its own (memory, IndexedDB, a KV namespace).
 */
import { nodeOnly } from "../platform/node-only.js";
import type * as node from "./file-token-store.js";

const instead = "pass a TokenStore of your own (OAuthClientOptions.store)";

/** The token store file is unreadable (not JSON, not ours) or cannot be locked or written. */
export class TokenStoreError extends Error {
  override name = "TokenStoreError";
}

export const mcpwireHome: typeof node.mcpwireHome = () => {
  throw nodeOnly("mcpwireHome", instead);
};

export const defaultTokenFile: typeof node.defaultTokenFile = () => {
  throw nodeOnly("defaultTokenFile", instead);
};

export class FileTokenStore {
  constructor() {
    throw nodeOnly("FileTokenStore", instead);
  }
}

FileTokenStore satisfies new (
  ...args: ConstructorParameters<typeof node.FileTokenStore>
) => unknown;
