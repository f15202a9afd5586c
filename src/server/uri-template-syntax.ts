/**
 * RFC 6570 template syntax: parsing templates into literals and expressions, the operator
 * table, and the percent-encoding rules shared by expansion and matching.
 */

/** Templates longer than this are rejected at construction; they are authored, not generated. */
export const MAX_TEMPLATE_LENGTH = 8192;
/** At most this many `{…}` expressions per template, keeping `match` bounded. */
export const MAX_EXPRESSIONS = 128;

type Operator = "" | "+" | "#" | "." | "/" | ";" | "?" | "&";

export interface OperatorRules {
  first: string;
  sep: string;
  named: boolean;
  ifEmpty: string;
  allowReserved: boolean;
}

// RFC 6570 appendix A, one row per operator.
export const RULES: Record<Operator, OperatorRules> = {
  "": { first: "", sep: ",", named: false, ifEmpty: "", allowReserved: false },
  "+": { first: "", sep: ",", named: false, ifEmpty: "", allowReserved: true },
  "#": { first: "#", sep: ",", named: false, ifEmpty: "", allowReserved: true },
  ".": { first: ".", sep: ".", named: false, ifEmpty: "", allowReserved: false },
  "/": { first: "/", sep: "/", named: false, ifEmpty: "", allowReserved: false },
  ";": { first: ";", sep: ";", named: true, ifEmpty: "", allowReserved: false },
  "?": { first: "?", sep: "&", named: true, ifEmpty: "=", allowReserved: false },
  "&": { first: "&", sep: "&", named: true, ifEmpty: "=", allowReserved: false },
};

export interface VarSpec {
  name: string;
  prefix: number | undefined;
  explode: boolean;
}

export interface Literal {
  kind: "literal";
  /** Already percent-encoded where the RFC requires it, i.e. exactly what appears in a URI. */
  text: string;
}

export interface Expression {
  kind: "expression";
  operator: Operator;
  specs: VarSpec[];
}

const OPERATORS = new Set(["+", "#", ".", "/", ";", "?", "&"]);
const RESERVED_OPERATORS = new Set(["=", ",", "!", "@", "|"]);
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
const PREFIX_LENGTH = /^[1-9][0-9]{0,3}$/;

function templateError(template: string, problem: string): Error {
  const shown = template.length > 80 ? `${template.slice(0, 80)}…` : template;
  return new Error(`Invalid URI template "${shown}": ${problem}`);
}

export function parseTemplate(template: string): Array<Literal | Expression> {
  if (template.length > MAX_TEMPLATE_LENGTH) {
    throw templateError(template, `longer than ${MAX_TEMPLATE_LENGTH} characters`);
  }
  const parts: Array<Literal | Expression> = [];
  let expressions = 0;
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf("{", i);
    const close = template.indexOf("}", i);
    if (close !== -1 && (open === -1 || close < open)) {
      throw templateError(template, `unmatched "}" at offset ${close}`);
    }
    const literalEnd = open === -1 ? template.length : open;
    if (literalEnd > i) {
      parts.push({ kind: "literal", text: encode(template.slice(i, literalEnd), true) });
    }
    if (open === -1) break;
    if (close === -1) throw templateError(template, `unclosed "{" at offset ${open}`);
    const nested = template.indexOf("{", open + 1);
    if (nested !== -1 && nested < close) {
      throw templateError(template, `"{" inside an expression at offset ${nested}`);
    }
    if (++expressions > MAX_EXPRESSIONS) {
      throw templateError(template, `more than ${MAX_EXPRESSIONS} expressions`);
    }
    parts.push(parseExpression(template, template.slice(open + 1, close)));
    i = close + 1;
  }
  return parts;
}

function parseExpression(template: string, body: string): Expression {
  if (body === "") throw templateError(template, "empty expression {}");
  let operator: Operator = "";
  let list = body;
  const first = body[0]!;
  if (OPERATORS.has(first)) {
    operator = first as Operator;
    list = body.slice(1);
  } else if (RESERVED_OPERATORS.has(first)) {
    throw templateError(template, `operator "${first}" is reserved by RFC 6570`);
  }
  const specs = list.split(",").map((text) => parseVarSpec(template, text));
  return { kind: "expression", operator, specs };
}

function parseVarSpec(template: string, text: string): VarSpec {
  let name = text;
  let prefix: number | undefined;
  let explode = false;
  if (name.endsWith("*")) {
    explode = true;
    name = name.slice(0, -1);
  } else {
    const colon = name.indexOf(":");
    if (colon !== -1) {
      const digits = name.slice(colon + 1);
      if (!PREFIX_LENGTH.test(digits)) {
        throw templateError(template, `invalid prefix length in "{${text}}" (must be 1–9999)`);
      }
      prefix = Number(digits);
      name = name.slice(0, colon);
    }
  }
  if (!VARNAME.test(name)) throw templateError(template, `invalid variable name "${name}"`);
  return { name, prefix, explode };
}

// ---------------------------------------------------------------------------------------------
// Encoding

const UNRESERVED = asciiTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~");
const RESERVED = asciiTable(":/?#[]@!$&'()*+,;=");

function asciiTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (const ch of chars) table[ch.charCodeAt(0)] = 1;
  return table;
}

function isHex(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

function isPercentTriplet(text: string, i: number): boolean {
  return (
    text.charCodeAt(i) === 37 && isHex(text.charCodeAt(i + 1)) && isHex(text.charCodeAt(i + 2))
  );
}

/**
 * Percent-encodes everything outside the unreserved set, or outside unreserved ∪ reserved when
 * `allowReserved` (operators + and #, and literals), where existing %XX triplets pass through.
 */
export function encode(text: string, allowReserved: boolean): string {
  let out = "";
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128 && (UNRESERVED[code] === 1 || (allowReserved && RESERVED[code] === 1))) continue;
    if (allowReserved && isPercentTriplet(text, i)) {
      i += 2;
      continue;
    }
    out += text.slice(copied, i);
    const codePoint = text.codePointAt(i)!;
    if (codePoint > 0xffff) i++;
    out += percentEncodeCodePoint(codePoint);
    copied = i + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function percentEncodeCodePoint(codePoint: number): string {
  // A lone surrogate has no UTF-8 form; encode the replacement character like TextEncoder does.
  const cp = codePoint >= 0xd800 && codePoint <= 0xdfff ? 0xfffd : codePoint;
  const bytes =
    cp < 0x80
      ? [cp]
      : cp < 0x800
        ? [0xc0 | (cp >> 6), 0x80 | (cp & 63)]
        : cp < 0x10000
          ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)]
          : [
              0xf0 | (cp >> 18),
              0x80 | ((cp >> 12) & 63),
              0x80 | ((cp >> 6) & 63),
              0x80 | (cp & 63),
            ];
  let out = "";
  for (const byte of bytes) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

export function decode(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // malformed escapes: keep the text as sent rather than refuse the URI
  }
}

/** The first `max` characters: code points, and for + and # a %XX triplet counts as one. */
export function truncate(text: string, max: number, allowReserved: boolean): string {
  let i = 0;
  for (let count = 0; count < max && i < text.length; count++) {
    const code = text.charCodeAt(i);
    if (allowReserved && isPercentTriplet(text, i)) i += 3;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) i += 2;
    else i += 1;
  }
  return text.slice(0, i);
}

export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
