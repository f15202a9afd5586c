import { InvalidParamsError, isPlainObject } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import {
  base64url,
  fromBase64url,
  fromUtf8,
  randomBytes,
  timingSafeEqual,
  utf8,
} from "../../platform/bytes.js";
import { hmacSha256, sha256 } from "../../platform/digest.js";
import { stableStringify } from "../../protocol/canonical-json.js";

/** Settings of the multi round-trip (MRTR) `requestState` codec. */
export interface RequestStateOptions {
  /**
   * HMAC-SHA256 key(s). Several keys allow rotation: state is signed with the first and accepted
   * if any of them verifies it. Default: 32 random bytes per process, so state does not survive
   * a restart and is not accepted by other instances; give a shared secret behind a load balancer.
   */
  secret?: string | Uint8Array | Array<string | Uint8Array>;
  /** How long a requestState stays valid (ms). Default 10 minutes. */
  ttlMs?: number;
  /** Largest requestState accepted or produced, in characters. Default 64 KiB. */
  maxStateBytes?: number;
  /** The clock, in ms since the epoch (tests inject one). Default Date.now. */
  now?: () => number;
}

/** What a state is bound to: it is only accepted on a request with the same binding. */
export interface StateBinding {
  method: string;
  /** The tool or prompt name, or the resource URI. */
  target: string;
  /** Whoever the transport authenticated; undefined for none. */
  principal: unknown;
  /**
   * The tool's or prompt's arguments (absent means {}); undefined for resources/read, whose
   * URI is the target. Digested only when a state is sealed or opened.
   */
  arguments?: unknown;
}

/** What a state carries from one round to the next. */
interface RoundState {
  /** 1 for the state sent with the first InputRequiredResult. */
  round: number;
  /** Answers recorded in earlier rounds, by input key. */
  answers: Record<string, JsonObject>;
  /** Keys asked for in the round this state was sent with; only these may be answered next. */
  asked: string[];
}

interface Payload {
  v: 2;
  m: string;
  t: string;
  /** Digest of the arguments (tools/call, prompts/get). */
  d?: string;
  p?: string;
  e: number;
  r: number;
  a: Record<string, JsonObject>;
  q: string[];
}

const DEFAULT_TTL_MS = 10 * 60_000;
const DEFAULT_MAX_STATE = 64 * 1024;

/**
 * Seals and opens `requestState`: base64url(JSON payload) + "." + base64url(HMAC-SHA256). The
 * client sees the payload (it is not encrypted) but cannot change it; the payload carries no
 * secrets, only the answers the client itself gave and a hash of the principal.
 */
export class RequestStateCodec {
  /** Signing keys, newest first; the default random key is made on first use. */
  private keysValue: Uint8Array[] | undefined;
  private readonly ttlMs: number;
  private readonly maxStateBytes: number;
  private readonly now: () => number;

  constructor(options: RequestStateOptions = {}) {
    if (options.secret !== undefined) {
      const secrets = Array.isArray(options.secret) ? options.secret : [options.secret];
      if (secrets.length === 0) throw new Error("mrtr.secret needs at least one key");
      this.keysValue = secrets.map((secret) =>
        typeof secret === "string" ? utf8(secret) : Uint8Array.from(secret),
      );
      for (const key of this.keysValue) {
        if (key.length < 16) throw new Error("mrtr.secret keys must be at least 16 bytes");
      }
    }
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.maxStateBytes = options.maxStateBytes ?? DEFAULT_MAX_STATE;
    this.now = options.now ?? Date.now;
  }

  seal(binding: StateBinding, state: RoundState): string {
    const payload: Payload = {
      v: 2,
      m: binding.method,
      t: binding.target,
      e: this.now() + this.ttlMs,
      r: state.round,
      a: state.answers,
      q: state.asked,
    };
    const principal = principalHash(binding.principal);
    if (principal !== undefined) payload.p = principal;
    const digest = argumentsDigest(binding);
    if (digest !== undefined) payload.d = digest;
    const body = base64url(utf8(JSON.stringify(payload)));
    const token = `${body}.${base64url(this.sign(this.keys[0]!, body))}`;
    if (token.length > this.maxStateBytes) {
      // The handler gathered more answers than a state may carry; fail loudly, not on retry.
      throw new Error(
        `requestState would be ${token.length} characters, over the ${this.maxStateBytes} limit (mrtr.maxStateBytes)`,
      );
    }
    return token;
  }

  /** Verifies a state received from a client; throws -32602 for anything not ours or stale. */
  open(token: unknown, binding: StateBinding): RoundState {
    if (typeof token !== "string") throw new InvalidParamsError("requestState must be a string");
    if (token.length > this.maxStateBytes) {
      throw new InvalidParamsError("requestState is too large");
    }
    const dot = token.indexOf(".");
    const body = token.slice(0, dot);
    // Only the canonical spelling of a MAC decodes: an altered one is refused like a wrong one.
    const mac = fromBase64url(token.slice(dot + 1));
    if (dot <= 0 || mac === undefined || !this.verify(body, mac)) {
      throw new InvalidParamsError(
        "requestState failed its integrity check (tampered, or sealed by another server)",
      );
    }
    const payload = parsePayload(body);
    if (payload.m !== binding.method || payload.t !== binding.target) {
      throw new InvalidParamsError(
        `requestState belongs to ${payload.m} ${JSON.stringify(payload.t)}, not to this request`,
      );
    }
    // 2026-07-28 basic/patterns/mrtr.mdx (Server Requirements): bind the state to "a digest of
    // its salient parameters", so answers given for one set of arguments cannot complete a call
    // with others.
    if (payload.d !== argumentsDigest(binding)) {
      throw new InvalidParamsError(
        "requestState was issued for other arguments, not to this request; send the request again without requestState",
      );
    }
    if (payload.p !== principalHash(binding.principal)) {
      throw new InvalidParamsError("requestState belongs to a different principal");
    }
    if (this.now() > payload.e) {
      throw new InvalidParamsError(
        "requestState has expired; send the request again without requestState",
      );
    }
    return { round: payload.r, answers: payload.a, asked: payload.q };
  }

  private get keys(): Uint8Array[] {
    this.keysValue ??= [randomBytes(32)];
    return this.keysValue;
  }

  private sign(key: Uint8Array, body: string): Uint8Array {
    return hmacSha256(key, body);
  }

  private verify(body: string, mac: Uint8Array): boolean {
    let ok = false;
    for (const key of this.keys) {
      const expected = this.sign(key, body);
      // Check every key (no early exit) so timing says nothing about which one matched.
      if (timingSafeEqual(expected, mac)) ok = true;
    }
    return ok;
  }
}

function parsePayload(body: string): Payload {
  let payload: unknown;
  try {
    const bytes = fromBase64url(body);
    payload = bytes === undefined ? undefined : JSON.parse(fromUtf8(bytes));
  } catch {
    payload = undefined;
  }
  // Signed by us, so a bad shape means a codec change between versions, not an attack.
  if (
    !isPlainObject(payload) ||
    payload.v !== 2 ||
    (payload.d !== undefined && typeof payload.d !== "string") ||
    typeof payload.m !== "string" ||
    typeof payload.t !== "string" ||
    typeof payload.e !== "number" ||
    typeof payload.r !== "number" ||
    !isPlainObject(payload.a) ||
    !Array.isArray(payload.q)
  ) {
    throw new InvalidParamsError("requestState has an unknown format");
  }
  return payload as unknown as Payload;
}

/**
 * SHA-256 of the arguments as canonical JSON (key order does not matter), for the methods whose
 * arguments are salient; undefined for the others.
 */
function argumentsDigest(binding: StateBinding): string | undefined {
  if (binding.method !== "tools/call" && binding.method !== "prompts/get") return undefined;
  let text: string;
  try {
    text = stableStringify(binding.arguments ?? {});
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new InvalidParamsError("arguments are nested too deeply for a multi round-trip request");
  }
  return base64url(sha256(text));
}

function principalHash(principal: unknown): string | undefined {
  if (principal === undefined || principal === null) return undefined;
  let text: string;
  try {
    text = typeof principal === "string" ? principal : JSON.stringify(principal);
  } catch {
    text = String(principal);
  }
  return base64url(sha256(text)).slice(0, 22);
}
