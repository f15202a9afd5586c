/**
 * The answers of a protected resource that refuses a request (RFC 6750 §3, RFC 9728 §5.1):
 * 401 with a Bearer challenge naming the metadata document (and, for a bad token, why), 403
 * insufficient_scope naming every scope the operation needs, 400 for a malformed header.
 */

export type ChallengeError =
  | "invalid_request"
  | "invalid_token"
  | "insufficient_scope"
  | "invalid_dpop_proof";

export interface ChallengeParams {
  resourceMetadata: string;
  /** Scopes to name in `scope`; omitted when empty. */
  scopes?: readonly string[];
  error?: ChallengeError;
  description?: string;
  /** "Bearer" (default) or "DPoP"; both challenges are sent when DPoP is on. */
  schemes?: readonly string[];
  /** DPoP `algs` parameter (RFC 9449 §7.1). */
  dpopAlgorithms?: readonly string[];
}

/** A quoted-string (RFC 9110 §5.6.4): backslash before `"` and `\`. */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
}

export function challengeHeader(params: ChallengeParams): string {
  const common: string[] = [];
  if (params.error) common.push(`error=${quoted(params.error)}`);
  if (params.description) common.push(`error_description=${quoted(params.description)}`);
  if (params.scopes && params.scopes.length > 0)
    common.push(`scope=${quoted(params.scopes.join(" "))}`);
  common.push(`resource_metadata=${quoted(params.resourceMetadata)}`);
  return (params.schemes ?? ["Bearer"])
    .map((scheme) => {
      const extra =
        scheme === "DPoP" && params.dpopAlgorithms
          ? [`algs=${quoted(params.dpopAlgorithms.join(" "))}`]
          : [];
      return `${scheme} ${[...common, ...extra].join(", ")}`;
    })
    .join(", ");
}

const STATUS = {
  invalid_request: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  invalid_dpop_proof: 401,
} as const;

export function challengeResponse(params: ChallengeParams): Response {
  const status = params.error ? STATUS[params.error] : 401;
  const body = params.error
    ? {
        error: params.error,
        ...(params.description ? { error_description: params.description } : {}),
      }
    : { error: "unauthorized", error_description: "an access token is required" };
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json",
      "WWW-Authenticate": challengeHeader(params),
      "Cache-Control": "no-store",
    },
  });
}

/** 503 when a token cannot be checked now (the authorization server is unreachable, say). */
export function unavailableResponse(): Response {
  return new Response(
    JSON.stringify({
      error: "temporarily_unavailable",
      error_description: "the access token cannot be checked now",
    }),
    {
      status: 503,
      headers: {
        "Content-Type": "application/json",
        "Retry-After": "5",
        "Cache-Control": "no-store",
      },
    },
  );
}
