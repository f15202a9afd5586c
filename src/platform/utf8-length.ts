/**
 * A string's length in UTF-8 bytes, without encoding it: Buffer.byteLength on Node (native, on
 * the HTTP reply path). The web build swaps this file for utf8-length.web.ts.
 */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
