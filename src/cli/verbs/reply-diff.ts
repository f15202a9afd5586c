/**
 * Comparing replies for `mcpwire replay`: ids never count (a replay may number requests its own
 * way), key order never counts; anything else that differs is shown as a line diff of the
 * pretty-printed JSON.
 */
import { jsonText } from "../core/terminal.js";

/** The reply as compared: without its id, keys sorted at every depth. */
export function normaliseReply(reply: unknown): unknown {
  if (reply === undefined) return undefined;
  const { id: _id, ...rest } = reply as Record<string, unknown>;
  return sortKeys(rest);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

export function pretty(value: unknown): string[] {
  return value === undefined ? ["(no reply)"] : jsonText(value, 2).split("\n");
}

/** Past this many lines on either side, the two texts are shown whole instead of diffed. */
const MAX_DIFF_LINES = 3000;

/**
 * A unified-style line diff ("-" recorded, "+" replayed, " " both), by longest common
 * subsequence; replies are small, so the quadratic table is fine up to MAX_DIFF_LINES.
 */
export function diffLines(before: string[], after: string[]): string[] {
  if (before.length > MAX_DIFF_LINES || after.length > MAX_DIFF_LINES) {
    return [...before.map((line) => `-${line}`), ...after.map((line) => `+${line}`)];
  }
  const rows = before.length + 1;
  const columns = after.length + 1;
  const common = new Uint32Array(rows * columns);
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      common[i * columns + j] =
        before[i] === after[j]
          ? common[(i + 1) * columns + j + 1]! + 1
          : Math.max(common[(i + 1) * columns + j]!, common[i * columns + j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) {
      out.push(` ${before[i++]}`);
      j++;
    } else if (
      j === after.length ||
      (i < before.length && common[(i + 1) * columns + j]! >= common[i * columns + j + 1]!)
    ) {
      out.push(`-${before[i++]}`);
    } else {
      out.push(`+${after[j++]}`);
    }
  }
  return out;
}
