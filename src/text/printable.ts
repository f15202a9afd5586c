/**
 * Text from a peer made safe to show a person. A hostile server can put escape sequences in any
 * string it sends (names, descriptions, results, log lines, URIs); written raw to a terminal they
 * can rewrite what the user reads, hide typed input, set the title, write the clipboard (OSC 52)
 * or disguise links (OSC 8). Every human-readable output of a peer's text goes through here.
 *
 * C0 controls, DEL, C1 controls (U+0080–U+009F), the Unicode line/paragraph separators and the
 * bidirectional overrides/isolates are rendered as visible escapes (`\x1b`, `\u202e`), so the
 * person still sees that they were there. Tab is kept; newline is kept only in multi-line text.
 */

// Built from code points, so this file holds no raw control characters itself.
const ALWAYS =
  "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";
const IN_TEXT = new RegExp(`[${ALWAYS}]`, "g");
const IN_LINE = new RegExp(`[${ALWAYS}\\n]`, "g");

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Multi-line text (tool results, resource text, instructions): newlines and tabs stay. */
export function printable(text: string): string {
  return text.replace(IN_TEXT, visible);
}

/** One line (names, titles, URIs, log and progress messages): a newline is shown as `\x0a`. */
export function printableLine(text: string): string {
  return text.replace(IN_LINE, visible);
}

/** Whether a link may be shown for a person to open: a plain http(s) URL and nothing else. */
export function isPlainHttpUrl(text: string): boolean {
  if (text !== printableLine(text) || /\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}
