/**
 * The audit trail appended to a file (Node only): one line per record, written in order.
 * Lines are queued in the stream's own buffer; `close()` flushes them.
 */
import { createWriteStream } from "node:fs";

export interface AuditFile {
  /** Pass as `audit({ write })`. */
  write(line: string): void;
  /** Flushes what is queued and closes the file. */
  close(): Promise<void>;
}

/** Opens (creating, mode 0600, or appending to) `path` for audit lines. */
export function auditFile(path: string, onError?: (error: Error) => void): AuditFile {
  const stream = createWriteStream(path, { flags: "a", mode: 0o600 });
  stream.on("error", (error) => onError?.(error));
  return {
    write: (line) => {
      stream.write(`${line}\n`);
    },
    close: () =>
      new Promise((resolve) => {
        if (stream.closed || stream.destroyed) resolve();
        else stream.end(() => resolve());
      }),
  };
}
