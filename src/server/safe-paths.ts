/**
 * Turning a resource template variable into a file path without leaving a directory.
 *
 * Template variables arrive percent-decoded, so `file:///docs/{name}` matched against
 * `file:///docs/..%2F..%2Fetc%2Fpasswd` gives name = "../../etc/passwd": joining that to a root
 * directory as it is reads outside it (path traversal). These helpers refuse such values with
 * -32602 so a read handler can pass the error straight through.
 */
import { InvalidParamsError } from "../jsonrpc/errors.js";

/** Percent-escapes are undone this many times at most when looking for a hidden ".." or "/". */
const MAX_DECODE_ROUNDS = 4;

/**
 * Splits a decoded variable value (or the segments of a `{/var*}` explode) into path segments.
 * Refuses `..` segments, also when still percent-encoded (`%2E%2E`, `%252E%252E`), segments
 * that would hold a separator once decoded again (`%2F`, `%5C`), backslashes, NUL bytes and
 * absolute paths. Empty and `.` segments are dropped.
 */
export function safePathSegments(value: string | readonly string[]): string[] {
  const parts = typeof value === "string" ? [value] : value;
  const segments: string[] = [];
  for (const part of parts) {
    if (typeof part !== "string") throw new InvalidParamsError("A path must be text");
    if (part.includes("\0")) throw refused("contains a NUL byte");
    if (part.includes("\\")) throw refused("contains a backslash");
    // With backslashes refused, a leading "/" or a drive letter is every absolute form.
    if (part.startsWith("/") || /^[A-Za-z]:/.test(part)) {
      throw refused("is an absolute path");
    }
    for (const segment of part.split("/")) {
      if (segment === "" || segment === ".") continue;
      const decoded = fullyDecoded(segment);
      if (decoded === "..") throw refused("has a '..' segment");
      if (decoded !== segment && /[/\\\0]/.test(decoded)) {
        throw refused("has an encoded path separator");
      }
      segments.push(segment);
    }
  }
  return segments;
}

/** Undoes percent-encoding until nothing changes (or the rounds run out, or it is malformed). */
function fullyDecoded(segment: string): string {
  let current = segment;
  for (let round = 0; round < MAX_DECODE_ROUNDS && current.includes("%"); round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) break;
    current = next;
  }
  return current;
}

export function refused(why: string): InvalidParamsError {
  return new InvalidParamsError(`Refused resource path: it ${why}`);
}
