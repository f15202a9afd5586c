/** The web build's UTF-8 length: counted per code point (no Buffer there), as TextEncoder encodes. */
import type { utf8Length as nodeUtf8Length } from "./utf8-length.js";

// All ASCII (JSON replies, almost always): one byte per unit. A regular expression is compiled
// to machine code by the engine and scans several times faster than the loop below.
const NON_ASCII = /[\u0080-\uffff]/;

export const utf8Length: typeof nodeUtf8Length = (text) => {
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4; // a surrogate pair: one code point above U+FFFF
      i++;
    } else bytes += 3; // the rest of the BMP, and a lone surrogate (written as U+FFFD)
  }
  return bytes;
};

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
