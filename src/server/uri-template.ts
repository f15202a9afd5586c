/**
 * RFC 6570 URI templates, levels 1–4: `expand` builds URIs, `match` routes a concrete URI (for
 * `resources/read`) back to a resource template. Matching is hand-written instead of compiled
 * to a regex: each expression's extent is found with a bounded number of forward/backward
 * scans, so an adversarial URI costs O(expressions × length) and can never backtrack
 * catastrophically.
 */

import {
  codePointLength,
  decode,
  type Expression,
  encode,
  type Literal,
  type OperatorRules,
  parseTemplate,
  RULES,
  truncate,
  type VarSpec,
} from "./uri-template-syntax.js";

export { MAX_EXPRESSIONS, MAX_TEMPLATE_LENGTH } from "./uri-template-syntax.js";

type UriTemplateValue =
  | string
  | number
  | boolean
  | readonly string[]
  | Readonly<Record<string, string>>
  | undefined;
export type UriTemplateVariables = Record<string, UriTemplateValue>;
type UriTemplateMatch = Record<string, string | string[]>;

/** A `{…}` (or a run of query expressions) as seen by the matcher. */
interface Segment {
  kind: "positional" | "bag";
  /** The operator's leading character, "" for simple and reserved expansion. */
  lead: string;
  /** Leading characters accepted when matching (`{?a}{&b}` expands to "&b=…" when a is unset). */
  leads: string;
  sep: string;
  specs: VarSpec[];
  /** Characters that can never occur inside this segment, so its extent ends before them. */
  forbidden: string;
  /** Whether the last variable may hold separators (lists as "a,b", labels as "tar.gz"). */
  joinRemainder: boolean;
}

type MatchPart = Literal | Segment;

export class UriTemplate {
  readonly template: string;
  readonly variableNames: readonly string[];
  private readonly parts: ReadonlyArray<Literal | Expression>;
  private readonly matchParts: readonly MatchPart[];

  constructor(template: string) {
    if (typeof template !== "string") throw new TypeError("URI template must be a string");
    this.template = template;
    this.parts = parseTemplate(template);
    const names: string[] = [];
    for (const part of this.parts) {
      if (part.kind !== "expression") continue;
      for (const spec of part.specs) if (!names.includes(spec.name)) names.push(spec.name);
    }
    this.variableNames = Object.freeze(names);
    this.matchParts = planMatch(this.parts);
  }

  /** Expands the template; undefined (or null) variables, empty lists and empty maps are skipped. */
  expand(variables: UriTemplateVariables): string {
    let out = "";
    for (const part of this.parts) {
      out += part.kind === "literal" ? part.text : expandExpression(part, variables);
    }
    return out;
  }

  /**
   * Returns the percent-decoded variables when `uri` is an expansion of this template, else
   * undefined. Deterministic and greedy (no backtracking): a variable's extent ends at the last
   * occurrence of what follows it that keeps the variable free of its forbidden characters,
   * or at the first `?`/`#`/`;`/`&` for the expressions those introduce. Simple `{var}`
   * and `{+var}` must be non-empty; the other operators make their expression optional.
   * Query (`{?a,b}{&c}`) and `{;params}` parts accept their names in any order, reject unknown
   * names, and give exploded variables (`{?tag*}`) as arrays. An exploded map there expands
   * to arbitrary names, which read as unknown: such URIs do not match.
   */
  match(uri: string): UriTemplateMatch | undefined {
    if (typeof uri !== "string") return undefined;
    const values = new Map<string, string | string[]>();
    const parts = this.matchParts;
    let pos = 0;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part.kind === "literal") {
        if (!uri.startsWith(part.text, pos)) return undefined;
        pos += part.text.length;
        continue;
      }
      const end = segmentEnd(parts, i, pos, uri);
      if (end < 0) return undefined;
      const region = uri.slice(pos, end);
      const ok =
        part.kind === "bag"
          ? matchBag(part, region, values)
          : matchPositional(part, region, values);
      if (!ok) return undefined;
      pos = end;
    }
    // fromEntries defines own properties, so a variable named __proto__ stays an ordinary key.
    return pos === uri.length ? Object.fromEntries(values) : undefined;
  }

  toString(): string {
    return this.template;
  }
}

/** True when `text` contains at least one `{…}` expression (i.e. it is a template, not a URI). */
export function isUriTemplate(text: string): boolean {
  return /\{[^{}]+\}/.test(text);
}

// ---------------------------------------------------------------------------------------------
// Expansion

function expandExpression(expression: Expression, variables: UriTemplateVariables): string {
  const rules = RULES[expression.operator];
  const pieces: string[] = [];
  for (const spec of expression.specs) {
    const piece = expandVariable(spec, variables[spec.name], rules);
    if (piece !== undefined) pieces.push(piece);
  }
  return pieces.length === 0 ? "" : rules.first + pieces.join(rules.sep);
}

function expandVariable(
  spec: VarSpec,
  value: UriTemplateValue | null,
  rules: OperatorRules,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  const enc = (text: string) => encode(text, rules.allowReserved);
  const named = (encoded: string, key = spec.name) =>
    encoded === "" ? key + rules.ifEmpty : `${key}=${encoded}`;

  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    let text = String(value);
    if (spec.prefix !== undefined) text = truncate(text, spec.prefix, rules.allowReserved);
    return rules.named ? named(enc(text)) : enc(text);
  }
  if (typeof value !== "object") {
    throw new TypeError(
      `URI template variable "${spec.name}" has unsupported type ${typeof value}`,
    );
  }
  // Prefix modifiers do not apply to composite values (RFC 6570 §2.4.1); they are ignored.
  if (Array.isArray(value)) {
    const items = value.filter((item) => item !== undefined && item !== null).map(String);
    if (items.length === 0) return undefined;
    if (!spec.explode) {
      const joined = items.map(enc).join(",");
      return rules.named ? `${spec.name}=${joined}` : joined;
    }
    return items.map((item) => (rules.named ? named(enc(item)) : enc(item))).join(rules.sep);
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined && item !== null)
    .map(([key, item]) => [enc(key), enc(String(item))] as const);
  if (entries.length === 0) return undefined;
  if (!spec.explode) {
    const joined = entries.map(([key, item]) => `${key},${item}`).join(",");
    return rules.named ? `${spec.name}=${joined}` : joined;
  }
  return entries
    .map(([key, item]) => (rules.named ? named(item, key) : `${key}=${item}`))
    .join(rules.sep);
}

// ---------------------------------------------------------------------------------------------
// Matching

/** Turns expressions into matcher segments, merging adjacent query (or ;param) expressions. */
function planMatch(parts: ReadonlyArray<Literal | Expression>): MatchPart[] {
  const plan: MatchPart[] = [];
  for (const part of parts) {
    if (part.kind === "literal") {
      plan.push(part);
      continue;
    }
    const op = part.operator;
    const previous = plan[plan.length - 1];
    if (op === "?" || op === "&" || op === ";") {
      const family = op === ";" ? ";" : "?&";
      if (previous?.kind === "bag" && previous.leads === family) {
        previous.specs.push(...part.specs);
        continue;
      }
      plan.push({
        kind: "bag",
        lead: op,
        leads: family,
        sep: RULES[op].sep,
        specs: [...part.specs],
        forbidden: op === ";" ? "/?#" : "#",
        joinRemainder: false,
      });
      continue;
    }
    plan.push({
      kind: "positional",
      lead: RULES[op].first,
      leads: RULES[op].first,
      sep: RULES[op].sep,
      specs: part.specs,
      // Reserved and fragment values may contain anything; the others cannot hold "/", "?"
      // or "#" unencoded ("/" separates the segments of a {/path} expression itself).
      forbidden: op === "+" || op === "#" ? "" : op === "/" ? "?#" : "/?#",
      joinRemainder: op === "" || op === "+" || op === "#" || op === ".",
    });
  }
  return plan;
}

/** Index of `char` in text[from, to), the last one when `last`, else the first; -1 if none. */
function findWithin(text: string, char: string, from: number, to: number, last: boolean): number {
  const code = char.charCodeAt(0);
  if (last) {
    for (let i = to - 1; i >= from; i--) if (text.charCodeAt(i) === code) return i;
  } else {
    for (let i = from; i < to; i++) if (text.charCodeAt(i) === code) return i;
  }
  return -1;
}

function firstOf(text: string, chars: string, from: number): number {
  if (chars === "") return text.length;
  for (let i = from; i < text.length; i++) if (chars.includes(text[i]!)) return i;
  return text.length;
}

/**
 * Where the segment at `index`, starting at `pos`, ends in `uri`; -1 when it cannot fit.
 * The segment reaches as far as it may (up to its first forbidden character), cut short by the
 * anchor that follows (the next literal, or the end) and then by the leading characters of the
 * optional segments in between, taken right to left so that each search stays bounded.
 */
function segmentEnd(parts: readonly MatchPart[], index: number, pos: number, uri: string): number {
  const segment = parts[index] as Segment;
  const limit = firstOf(uri, segment.forbidden, pos);
  let anchorIndex = index + 1;
  while (anchorIndex < parts.length) {
    const part = parts[anchorIndex]!;
    if (part.kind === "literal" || part.lead === "") break;
    anchorIndex++;
  }
  const anchor = parts[anchorIndex];
  let bound = limit;
  if (anchor?.kind === "literal") {
    const literal = anchor.text;
    let at: number;
    if (anchorIndex === parts.length - 1) {
      // The final literal is a suffix; anchoring it there makes "{name}.txt" greedy.
      at = uri.endsWith(literal) ? uri.length - literal.length : -1;
    } else if (literal[0] === "?" || literal[0] === "#") {
      at = uri.indexOf(literal, pos);
    } else {
      at = uri.lastIndexOf(literal, anchorIndex === index + 1 ? limit : uri.length);
    }
    if (at < pos) return -1;
    bound = Math.min(at, limit);
  }
  for (let k = anchorIndex - 1; k > index; k--) {
    const next = parts[k] as Segment;
    const lead = next.lead;
    const query = next.leads === "?&";
    if (segment.forbidden.includes(lead) && !query) continue; // the limit already stops there
    // "." and "/" may legitimately repeat inside the preceding value, so take the last one;
    // "?", "#", ";" and "&" start the next URI component at their first occurrence.
    let at = findWithin(uri, lead, pos, bound, lead === "." || lead === "/");
    // "{?a}{&b}" expands to "&b=…" when a is unset, so "&" can open a query too.
    if (at === -1 && query) at = findWithin(uri, "&", pos, bound, false);
    if (at !== -1) bound = at;
  }
  return bound;
}

function setValue(
  values: Map<string, string | string[]>,
  spec: VarSpec,
  value: string | string[],
): boolean {
  if (typeof value === "string" && spec.prefix !== undefined) {
    if (codePointLength(value) > spec.prefix) return false;
  }
  const existing = values.get(spec.name);
  if (existing === undefined) {
    values.set(spec.name, value);
    return true;
  }
  // The same variable twice (e.g. "{/var:1,var}"): one must be a prefix of the other.
  if (typeof existing === "string" && typeof value === "string") {
    if (existing.startsWith(value)) return true;
    if (value.startsWith(existing)) {
      values.set(spec.name, value);
      return true;
    }
    return false;
  }
  return JSON.stringify(existing) === JSON.stringify(value);
}

function matchPositional(
  segment: Segment,
  region: string,
  values: Map<string, string | string[]>,
): boolean {
  if (region === "") return segment.lead !== ""; // {var} and {+var} need a value
  let body = region;
  if (segment.lead !== "") {
    if (region[0] !== segment.lead) return false;
    body = region.slice(1);
  }
  const pieces = body.split(segment.sep);
  const specs = segment.specs;
  let used = 0;
  for (let s = 0; s < specs.length && used < pieces.length; s++) {
    const spec = specs[s]!;
    if (spec.explode) {
      if (!setValue(values, spec, pieces.slice(used).map(decode))) return false;
      used = pieces.length;
      break;
    }
    const takesRest = s === specs.length - 1 && segment.joinRemainder;
    const raw = takesRest ? pieces.slice(used).join(segment.sep) : pieces[used]!;
    used = takesRest ? pieces.length : used + 1;
    if (!setValue(values, spec, decode(raw))) return false;
  }
  return used === pieces.length;
}

function matchBag(segment: Segment, region: string, values: Map<string, string | string[]>) {
  if (region === "") return true; // every query/param variable is optional
  if (!segment.leads.includes(region[0]!)) return false;
  const byName = new Map(segment.specs.map((spec) => [spec.name, spec]));
  const exploded = new Map<VarSpec, string[]>();
  const seen = new Set<VarSpec>();
  for (const pair of region.slice(1).split(segment.sep)) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const spec = byName.get(rawName) ?? byName.get(decode(rawName));
    if (spec === undefined) return false;
    const value = eq === -1 ? "" : decode(pair.slice(eq + 1));
    if (spec.explode) {
      const list = exploded.get(spec) ?? [];
      list.push(value);
      exploded.set(spec, list);
      continue;
    }
    if (seen.has(spec)) return false; // a repeated plain parameter is ambiguous
    seen.add(spec);
    if (!setValue(values, spec, value)) return false;
  }
  for (const [spec, list] of exploded) if (!setValue(values, spec, list)) return false;
  return true;
}
