/**
 * protectResource: makes an HTTP endpoint an OAuth 2.1 protected resource (2026-07-28
 * basic/authorization). It serves the Protected Resource Metadata (RFC 9728) at the path-aware
 * well-known URL, takes a bearer token from every request (RFC 6750 §2.1 header only; the
 * scheme compared case-insensitively), has the verifier check it (cached until it expires),
 * answers 401/403 with the challenges the spec describes, and checks the scopes each request
 * needs before anything runs.
 */
import { base64url } from "../../platform/bytes.js";
import { sha256 } from "../../platform/digest.js";
import type { GuardedRequest, ResourceGuard } from "../../transports/http/resource-guard.js";
import { type ChallengeError, challengeResponse, unavailableResponse } from "./challenge.js";
import { checkServerUrl } from "./config-checks.js";
import { DpopChecker, type DpopOptions, InvalidProofError } from "./dpop.js";
import { failureReporter } from "./failure-reports.js";
import { jwtAccessTokens } from "./jwt-verifier.js";
import {
  type AccessTokenPrincipal,
  InvalidTokenError,
  principalOf,
  type VerifiedToken,
} from "./principal.js";
import { metadataDocument, resourceUrl, siblingResource, WELL_KNOWN } from "./resource-metadata.js";
import { impliedScopesOf, type ScopeHierarchy, withImpliedScopes } from "./scope-hierarchy.js";
import { TokenCache } from "./token-cache.js";
import type { TokenVerifier } from "./verifier.js";

export interface ProtectResourceOptions {
  /**
   * The authorization server whose tokens are accepted (its issuer identifier). With no
   * `verifier`, its tokens are checked as JWT access tokens against its JWKS.
   */
  issuer?: string;
  /** All authorization servers to list in the metadata. Default: `[issuer]`. */
  authorizationServers?: string[];
  /**
   * The canonical URL of this MCP endpoint (RFC 8707): the audience tokens must name and the
   * `resource` of the metadata, e.g. `https://mcp.example.com/mcp`. serveHttp fills in the URL
   * it listens on when this is left out; set it whenever clients reach the server by another
   * name (a proxy, a public host name).
   */
  resource?: string;
  /** How tokens are checked. Default: jwtAccessTokens({ issuer }). */
  verifier?: TokenVerifier;
  /**
   * Scopes every request needs. They are named in every 401 challenge and, unless
   * `scopesSupported` says otherwise, as the metadata's `scopes_supported`: clients following
   * the spec ask for exactly these, and ask for none when a server names none.
   */
  requiredScopes?: string[];
  /** Scopes a request of a given method needs, e.g. `{ "resources/read": ["files:read"] }`. */
  methodScopes?: Record<string, string[]>;
  /**
   * `scopes_supported` of the metadata. Default: `requiredScopes`. With no `requiredScopes`, the
   * 401 challenge names these instead (what a client should ask for to get in). Never
   * `offline_access`: refresh tokens are no resource's business.
   */
  scopesSupported?: string[];
  /**
   * Which scopes imply which, e.g. `{ files: ["files:read", "files:write"] }` or a function:
   * a token granted a broader scope passes checks for the narrower ones it implies (followed
   * transitively; `context.principal.scopes` lists them all). Applied to whatever the verifier
   * returns; the default verifier is given it too. Default: exact matching.
   */
  scopeHierarchy?: ScopeHierarchy;
  /** `resource_name` of the metadata. */
  resourceName?: string;
  /** More metadata fields (e.g. resource_documentation). */
  metadata?: Record<string, unknown>;
  /**
   * Accept DPoP-bound tokens (RFC 9449: `Authorization: DPoP <token>` with a `DPoP` proof).
   * `{ required: true }` refuses bearer tokens altogether. Default off: a DPoP-bound token
   * presented as a bearer token is refused either way.
   */
  dpop?: boolean | DpopOptions;
  /** Verified tokens remembered at once (oldest forgotten first). Default 10,000. */
  maxCachedTokens?: number;
  /**
   * Where a failure to check a token (not a bad token) is reported. Default: stderr, one line
   * per kind of failure per 10 s (then how many more there were).
   */
  onError?(error: Error): void;
}

/** What every path of one protected resource shares: who issues tokens, how they are checked. */
interface Setup {
  readonly options: ProtectResourceOptions;
  readonly servers: string[];
  readonly verifier: TokenVerifier;
  readonly required: readonly string[];
  /** The scopes a 401 challenge names. */
  readonly advertised: readonly string[];
  readonly methodScopes: ReadonlyMap<string, readonly string[]>;
  readonly dpop: DpopChecker | undefined;
  readonly implies: ((scope: string) => readonly string[]) | undefined;
  /** Where a failure to check a token goes (onError, or throttled stderr). */
  readonly report: (error: unknown) => void;
}

interface Cached {
  principal: AccessTokenPrincipal;
  /** The DPoP key the token is bound to (its cnf.jkt), if any. */
  jkt: string | undefined;
}

/** RFC 6750 §2.1 b64token. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export function protectResource(options: ProtectResourceOptions): ResourceGuard {
  const servers = options.authorizationServers ?? (options.issuer ? [options.issuer] : []);
  if (servers.length === 0) {
    throw new Error("protectResource: name the issuer (or authorizationServers)");
  }
  for (const server of servers) checkServerUrl("protectResource: authorization server", server);
  if (!options.verifier && !options.issuer) {
    throw new Error(
      "protectResource: without a verifier, issuer is required (its JWKS checks tokens)",
    );
  }
  const required = options.requiredScopes ?? [];
  const asked = [...required, ...Object.values(options.methodScopes ?? {}).flat()];
  if (asked.includes("offline_access")) {
    // 2026-07-28: refresh tokens are not a resource requirement; never named in a challenge.
    throw new Error("protectResource: offline_access is not a scope a resource can require");
  }
  const { scopeHierarchy } = options;
  const supported = options.scopesSupported?.filter((scope) => scope !== "offline_access");
  const guard = new ProtectedResource({
    options,
    servers,
    verifier:
      options.verifier ??
      jwtAccessTokens({
        issuer: options.issuer!,
        ...(scopeHierarchy === undefined ? {} : { scopeHierarchy }),
      }),
    required,
    advertised: required.length > 0 ? required : (supported ?? []),
    methodScopes: new Map(Object.entries(options.methodScopes ?? {})),
    dpop: options.dpop ? new DpopChecker(options.dpop === true ? {} : options.dpop) : undefined,
    implies: impliedScopesOf(scopeHierarchy),
    report: failureReporter(options.onError),
  });
  if (options.resource !== undefined) guard.setResource(options.resource);
  return guard;
}

class ProtectedResource implements ResourceGuard {
  documentPaths: readonly string[] = [];
  private resource: string | undefined;
  private metadataUrl = "";
  private document = "";
  /** The path serveHttp serves the endpoint at, once it said (useEndpointUrl). */
  private servedPath: string | undefined;
  /** Guards of the handler's other paths (forPath), whose resource follows this one's. */
  private readonly others: { path: string; guard: ProtectedResource }[] = [];
  private readonly required: readonly string[];
  private readonly advertised: readonly string[];
  private readonly cache: TokenCache<Cached>;
  private readonly pending = new Map<string, Promise<Cached | Response>>();
  private readonly dpop: DpopChecker | undefined;

  constructor(private readonly setup: Setup) {
    this.required = setup.required;
    this.advertised = setup.advertised;
    this.dpop = setup.dpop;
    this.cache = new TokenCache(setup.options.maxCachedTokens ?? 10_000);
  }

  useEndpointUrl(url: string): void {
    this.servedPath = new URL(url).pathname;
    if (this.resource === undefined) this.setResource(url);
    else this.placeOthers(this.resource);
  }

  forPath(path: string): ResourceGuard {
    const guard = new ProtectedResource(this.setup);
    this.others.push({ path, guard });
    if (this.resource !== undefined) this.placeOthers(this.resource);
    return guard;
  }

  setResource(resource: string): void {
    const url = resourceUrl(resource);
    this.resource = resource;
    const path = url.pathname.replace(/\/+$/, "");
    // RFC 9728 §3.1: the well-known segment goes between the host and the resource's path.
    this.metadataUrl = `${url.origin}${WELL_KNOWN}${path}`;
    this.documentPaths = path === "" ? [WELL_KNOWN] : [`${WELL_KNOWN}${path}`, WELL_KNOWN];
    const { options, servers, dpop } = this.setup;
    this.document = metadataDocument(options, servers, dpop, resource);
    this.placeOthers(resource);
  }

  /**
   * Gives each other path its resource: the endpoint's own when that covers the path the way
   * clients check it (the origin, say), else the path beside the endpoint's, e.g. …/sse for
   * …/mcp, with its own document at /.well-known/oauth-protected-resource/sse.
   */
  private placeOthers(resource: string): void {
    for (const { path, guard } of this.others) {
      const own = siblingResource(resource, this.servedPath, path);
      if (own === undefined) {
        guard.resource = resource;
        guard.metadataUrl = this.metadataUrl;
        guard.documentPaths = [];
      } else {
        guard.setResource(own);
        // The root document stays the endpoint's.
        guard.documentPaths = guard.documentPaths.slice(0, 1);
      }
    }
  }

  serveDocument(request: Request): Response {
    // Public metadata: any origin may read it (browser-based clients discover through it).
    const cors = {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": "GET, OPTIONS",
      "Access-Control-Allow-Headers": "Authorization, Content-Type, MCP-Protocol-Version",
    };
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response(null, { status: 405, headers: { ...cors, Allow: "GET, HEAD, OPTIONS" } });
    }
    return new Response(request.method === "HEAD" ? null : this.document, {
      status: 200,
      headers: { ...cors, "Content-Type": "application/json", "Cache-Control": "max-age=300" },
    });
  }

  authenticate(
    request: GuardedRequest,
  ): AccessTokenPrincipal | Response | Promise<AccessTokenPrincipal | Response> {
    const resource = this.resource;
    if (resource === undefined) {
      throw new Error("protectResource: no resource URL (pass resource, or serve with serveHttp)");
    }
    const header = request.headers.get("authorization");
    if (header === null) return this.challenge(this.advertised);
    const space = header.indexOf(" ");
    const bearer = isScheme(header, space, "bearer");
    const dpop = !bearer && isScheme(header, space, "dpop") ? this.dpop : undefined;
    if (!bearer && !dpop) return this.challenge(this.advertised);
    if (bearer && this.dpop?.required) return this.challenge(this.advertised);
    const token = header.slice(space + 1).trim();
    const cached = this.cache.get(token);
    // The cached bearer case answers synchronously: no promise on the hot path. (A cached token
    // passed the syntax check below when it was first seen.)
    if (cached !== undefined && !dpop) return this.admitBearer(cached);
    if (cached === undefined && !TOKEN68.test(token)) {
      return this.challenge(
        this.advertised,
        "invalid_request",
        "the Authorization header is malformed",
      );
    }
    let verifying = cached ? Promise.resolve(cached) : this.pending.get(token);
    if (!verifying) {
      verifying = this.verify(token, resource).finally(() => this.pending.delete(token));
      this.pending.set(token, verifying);
    }
    return verifying.then((outcome) => {
      if (outcome instanceof Response) return outcome;
      return dpop
        ? this.admitDpop(dpop, outcome, request, token, resource)
        : this.admitBearer(outcome);
    });
  }

  authorize(
    principal: unknown,
    method: string,
    targetScopes: readonly string[] | undefined,
  ): Response | undefined {
    const forMethod = this.setup.methodScopes.get(method);
    if (forMethod === undefined && targetScopes === undefined) return undefined;
    const needed = [...new Set([...this.required, ...(forMethod ?? []), ...(targetScopes ?? [])])];
    const granted = (principal as AccessTokenPrincipal).scopes;
    if (needed.every((scope) => granted.includes(scope))) return undefined;
    const description = `this request needs the scopes: ${needed.join(" ")}`;
    return this.challenge(needed, "insufficient_scope", description);
  }

  /** A token presented as a bearer token: refused when bound to a DPoP key (RFC 9449 §7.2). */
  private admitBearer(known: Cached): AccessTokenPrincipal | Response {
    if (known.jkt !== undefined) {
      return this.challenge(this.advertised, "invalid_token", "the token is bound to a DPoP key");
    }
    return this.admit(known.principal);
  }

  private async admitDpop(
    dpop: DpopChecker,
    known: Cached,
    request: GuardedRequest,
    token: string,
    resource: string,
  ): Promise<AccessTokenPrincipal | Response> {
    if (known.jkt === undefined) {
      return this.challenge(
        this.advertised,
        "invalid_token",
        "the token is not bound to a DPoP key",
      );
    }
    try {
      await dpop.check(request, token, known.jkt, resource);
    } catch (error) {
      if (!(error instanceof InvalidProofError)) throw error;
      return this.challenge(this.advertised, "invalid_dpop_proof", error.message);
    }
    return this.admit(known.principal);
  }

  private admit(principal: AccessTokenPrincipal): AccessTokenPrincipal | Response {
    if (this.required.every((scope) => principal.scopes.includes(scope))) return principal;
    return this.challenge(
      this.required,
      "insufficient_scope",
      `this resource needs the scopes: ${this.required.join(" ")}`,
    );
  }

  /** The token checked by the verifier (and remembered), or the refusal. */
  private async verify(token: string, resource: string): Promise<Cached | Response> {
    try {
      let verified = await this.setup.verifier.verify(token, resource);
      const { implies } = this.setup;
      if (implies !== undefined) {
        verified = { ...verified, scopes: withImpliedScopes(verified.scopes, implies) };
      }
      const principal = principalOf(verified, () => base64url(sha256(token)));
      return this.remember(token, principal, verified);
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        return this.challenge(this.advertised, "invalid_token", error.message);
      }
      this.setup.report(error);
      return unavailableResponse();
    }
  }

  private remember(
    token: string,
    principal: AccessTokenPrincipal,
    verified: VerifiedToken,
  ): Cached {
    const now = Date.now();
    const limit =
      now +
      Math.min(
        this.setup.verifier.maxCacheMs ?? Number.POSITIVE_INFINITY,
        verified.maxCacheMs ?? Number.POSITIVE_INFINITY,
      );
    const until = Math.min(principal.expiresAt ?? limit, limit);
    const entry: Cached = { principal, jkt: verified.jkt };
    if (Number.isFinite(until) && until > now) this.cache.set(token, entry, until);
    return entry;
  }

  private challenge(
    scopes: readonly string[],
    error?: ChallengeError,
    description?: string,
  ): Response {
    const { dpop } = this;
    return challengeResponse({
      resourceMetadata: this.metadataUrl,
      scopes,
      ...(dpop
        ? {
            schemes:
              dpop.required || error === "invalid_dpop_proof" ? ["DPoP"] : ["Bearer", "DPoP"],
            dpopAlgorithms: dpop.algorithms,
          }
        : {}),
      ...(error ? { error } : {}),
      ...(description ? { description } : {}),
    });
  }
}

/**
 * Whether the header's auth-scheme (before `space`, -1 for none) is `lower`, compared
 * case-insensitively (RFC 9110 §11.1) without building a lowercased copy per request.
 */
function isScheme(header: string, space: number, lower: string): boolean {
  const end = space < 0 ? header.length : space;
  if (end !== lower.length) return false;
  for (let i = 0; i < end; i++) {
    // ASCII letters differ from their other case in the 0x20 bit only; `lower` is letters.
    if ((header.charCodeAt(i) | 0x20) !== lower.charCodeAt(i)) return false;
  }
  return true;
}
