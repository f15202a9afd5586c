/**
 * JSON with object keys sorted (by UTF-16 code units) at every depth, so values that are equal as
 * JSON give equal text whatever order their keys were written in: cache keys on the client, the
 * arguments digest a server binds a requestState to. Keys whose value is undefined are left out,
 * as JSON.stringify does. Recursive: a value nested past the stack throws a RangeError.
 */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => stableStringify(item)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const parts = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableStringify(record[key])}`);
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
