/**
 * A JWT bearer assertion read from a file each time a token is needed: workload identity
 * platforms (Kubernetes projected service account tokens, cloud workload identity agents)
 * write short-lived tokens to a path and replace them before they expire.
 *
 * The path comes from configuration, and what is read is sent to an authorization server, so
 * only a regular file is read (a device such as /dev/zero never ends, a FIFO never answers;
 * `stat().size` is 0 for both), never more than a JWT's worth, within a time limit, and only
 * when what it holds has the shape of a JWT (not, say, /proc/self/environ).
 */
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

export interface AssertionFileOptions {
  /** Largest file taken (bytes). Default 64 KiB: assertions are JWTs of a few kilobytes. */
  maxBytes?: number;
  /** How long opening and reading may take (ms). Default 5 s. */
  timeoutMs?: number;
}

/** JWS compact serialization: three base64url parts. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function assertionFromFile(
  path: string,
  options: AssertionFileOptions = {},
): () => Promise<string> {
  const maxBytes = options.maxBytes ?? 64 * 1024;
  const timeoutMs = options.timeoutMs ?? 5_000;
  return async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`reading the assertion file ${path} took over ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([readAssertion(path, maxBytes), late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

async function readAssertion(path: string, maxBytes: number): Promise<string> {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) {
      throw new TypeError(`the assertion file ${path} is not a regular file`);
    }
    const text = (await readUpTo(handle, maxBytes, path)).toString("utf8").trim();
    if (!COMPACT_JWS.test(text)) {
      throw new TypeError(`the assertion file ${path} does not hold a JWT`);
    }
    return text;
  } finally {
    await handle.close().catch(() => {});
  }
}

/** The whole file, refused once it proves longer than `maxBytes` (whatever its stat says). */
async function readUpTo(handle: FileHandle, maxBytes: number, path: string): Promise<Buffer> {
  const buffer = Buffer.alloc(maxBytes + 1);
  let filled = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
    if (bytesRead === 0) return buffer.subarray(0, filled);
    filled += bytesRead;
    if (filled > maxBytes) {
      throw new TypeError(`the assertion file ${path} is too big to hold a JWT`);
    }
  }
}
