/**
 * A body read whole, up to a cap: past `max` bytes the rest is cancelled unread and the answer
 * is undefined, so an oversized body is never buffered.
 */
import { concatBytes } from "./bytes.js";

export async function readUpTo(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}
