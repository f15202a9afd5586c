/**
 * `WWW-Authenticate` parsing (RFC 9110 §11.6.1): one header may hold several challenges
 * (`Bearer …, DPoP …`), and several header lines arrive joined with ", ". A challenge is a scheme
 * followed by either a token68 or comma-separated `name=value` parameters, where a value is a
 * token or a quoted string with backslash escapes. Malformed input never throws: what can be read
 * is returned, the rest is dropped.
 */

export interface AuthChallenge {
  /** Lower-cased scheme: "bearer", "dpop", "basic", … */
  readonly scheme: string;
  /** Parameter names lower-cased; the first of a repeated name wins. */
  readonly params: Readonly<Record<string, string>>;
  readonly token68?: string;
}

/** What an MCP client reads from a Bearer (or DPoP) challenge. */
export interface ResourceChallenge {
  readonly scheme: string;
  readonly resourceMetadata?: string;
  /** The scopes the server asks for, in its order, without duplicates. */
  readonly scopes?: readonly string[];
  readonly error?: string;
}

/** Headers longer than this are not parsed (no server needs it; a hostile one gets nothing). */
const MAX_HEADER_LENGTH = 16 * 1024;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68_CHAR = /[A-Za-z0-9\-._~+/]/;

export function parseWwwAuthenticate(header: string | null | undefined): AuthChallenge[] {
  if (!header || header.length > MAX_HEADER_LENGTH) return [];
  const reader = new Reader(header);
  const challenges: AuthChallenge[] = [];
  for (;;) {
    reader.skip(/[\s,]/);
    if (reader.done) break;
    const scheme = reader.token();
    if (!scheme) break; // garbage where a scheme should be: stop here
    const params: Record<string, string> = {};
    let token68: string | undefined;
    reader.skip(/[ \t]/);
    const token68Value = reader.tryToken68();
    if (token68Value !== undefined) token68 = token68Value;
    else {
      for (;;) {
        reader.skip(/[\s,]/);
        if (reader.done) break;
        const mark = reader.position;
        const name = reader.token();
        reader.skip(/[ \t]/);
        if (!name || !reader.take("=")) {
          // The start of the next challenge (or junk): leave it to the outer loop.
          reader.position = mark;
          break;
        }
        reader.skip(/[ \t]/);
        const value = reader.peek() === '"' ? reader.quoted() : reader.token();
        if (value === undefined) {
          reader.position = mark;
          break;
        }
        const key = name.toLowerCase();
        if (!(key in params)) params[key] = value;
      }
    }
    challenges.push(
      token68 === undefined
        ? { scheme: scheme.toLowerCase(), params }
        : { scheme: scheme.toLowerCase(), params, token68 },
    );
  }
  return challenges;
}

/**
 * The challenge an MCP client acts on: Bearer first, else DPoP (both carry the same RFC 6750 /
 * RFC 9728 parameters). Undefined when the server sent neither.
 */
export function resourceChallenge(headers: Headers): ResourceChallenge | undefined {
  const challenges = parseWwwAuthenticate(headers.get("www-authenticate"));
  const chosen =
    challenges.find((c) => c.scheme === "bearer") ?? challenges.find((c) => c.scheme === "dpop");
  if (!chosen) return undefined;
  const { resource_metadata: resourceMetadata, scope, error } = chosen.params;
  const scopes = scope === undefined ? undefined : splitScopes(scope);
  return {
    scheme: chosen.scheme,
    ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
    ...(scopes === undefined || scopes.length === 0 ? {} : { scopes }),
    ...(error === undefined ? {} : { error }),
  };
}

/** A space-separated scope string as a list without duplicates (RFC 6749 §3.3). */
export function splitScopes(scope: string): string[] {
  return [...new Set(scope.split(/[ \t]+/).filter((s) => s.length > 0))];
}

class Reader {
  position = 0;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  get done(): boolean {
    return this.position >= this.text.length;
  }

  peek(): string | undefined {
    return this.text[this.position];
  }

  skip(pattern: RegExp): void {
    while (!this.done && pattern.test(this.text[this.position] as string)) this.position += 1;
  }

  take(char: string): boolean {
    if (this.text[this.position] !== char) return false;
    this.position += 1;
    return true;
  }

  token(): string | undefined {
    const start = this.position;
    this.skip(TOKEN_CHAR);
    return this.position > start ? this.text.slice(start, this.position) : undefined;
  }

  /** A token68 (`abc123==`) ending the challenge, or undefined (position unchanged). */
  tryToken68(): string | undefined {
    const start = this.position;
    while (!this.done && TOKEN68_CHAR.test(this.text[this.position] as string)) this.position += 1;
    if (this.position === start) return undefined;
    while (this.text[this.position] === "=") this.position += 1;
    const end = this.position;
    this.skip(/[ \t]/);
    // A token68 ends the challenge: the end or a comma follows ("realm=x" is a parameter).
    const next = this.peek();
    if (next === undefined || next === ",") return this.text.slice(start, end);
    this.position = start;
    return undefined;
  }

  /** A quoted string with `\x` escapes; undefined when it never closes. */
  quoted(): string | undefined {
    const start = this.position;
    this.position += 1;
    let out = "";
    while (!this.done) {
      const char = this.text[this.position] as string;
      this.position += 1;
      if (char === '"') return out;
      if (char === "\\" && !this.done) {
        out += this.text[this.position];
        this.position += 1;
      } else out += char;
    }
    this.position = start;
    return undefined;
  }
}
