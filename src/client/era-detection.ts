/**
 * Which era a server speaks, found the way the stdio binding prescribes (2026-07-28
 * basic/transports/stdio.mdx, Backward Compatibility): probe with `server/discover`; a
 * DiscoverResult or a recognized modern error means modern, anything else means legacy.
 */
import {
  ErrorCode,
  JsonRpcError,
  LocalError,
  UnsupportedProtocolVersionError,
} from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type { RequestOptions } from "../protocol/outgoing.js";
import { isLegacyVersion, MODERN_VERSIONS } from "../protocol/versions.js";
import { completeResult, InputRequiredError, InvalidResultError } from "./results.js";

/** Sends `server/discover` with modern `_meta` declaring `version`. */
type DiscoverSender = (version: string, options: RequestOptions) => Promise<JsonObject>;

/** Errors only a modern server sends: receiving one proves the server modern. */
const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

/** The server is modern, but none of its versions is one this client speaks. */
export class NoCommonVersionError extends Error {
  override name = "NoCommonVersionError";
  readonly offered: string[];
  /** True when the list came from a DiscoverResult, false when from a -32022 error. */
  readonly fromDiscoverResult: boolean;

  constructor(offered: string[], ours: string[], fromDiscoverResult: boolean) {
    super(
      `no protocol version in common with the server: it supports ${offered.join(", ") || "none"}; ` +
        `this client speaks ${ours.join(", ")}`,
    );
    this.offered = offered;
    this.fromDiscoverResult = fromDiscoverResult;
  }
}

/** A modern server was found, but the handshake with it failed afterwards. */
export class ModernHandshakeError extends Error {
  override name = "ModernHandshakeError";
}

/** The versions we would declare: the caller's preference first, then the library's newest. */
function modernVersionsWeSpeak(preferred: string): string[] {
  const ours = [...MODERN_VERSIONS].sort().reverse() as string[];
  return ours.includes(preferred) ? ours : [preferred, ...ours];
}

/** The preferred version if the server offers it, else the newest one both sides speak. */
export function chooseModernVersion(
  preferred: string,
  offered: readonly unknown[],
): string | undefined {
  return modernVersionsWeSpeak(preferred).find((version) => offered.includes(version));
}

interface DiscoverOutcome {
  /** The version to declare on every request from now on. */
  version: string;
  result: JsonObject;
}

/**
 * `server/discover` with version negotiation: on -32022 retry once with a version from
 * `data.supported`; then pick the version to use from `supportedVersions`.
 */
export async function discoverModern(
  send: DiscoverSender,
  preferred: string,
  timeoutMs?: number,
): Promise<DiscoverOutcome> {
  const options: RequestOptions = timeoutMs === undefined ? {} : { timeoutMs };
  let result: JsonObject;
  try {
    result = await send(preferred, options);
  } catch (error) {
    if (!(error instanceof UnsupportedProtocolVersionError)) throw error;
    const retryVersion = chooseModernVersion(preferred, error.supported);
    // A server naming the very version we sent is retried once too: the conformance suite's
    // request-metadata scenario answers the first request with -32022 whatever it carried.
    if (retryVersion === undefined) {
      throw new NoCommonVersionError(error.supported, modernVersionsWeSpeak(preferred), false);
    }
    try {
      result = await send(retryVersion, {});
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new ModernHandshakeError(
        `server/discover retried with ${retryVersion} after -32022 and failed: ${detail}`,
        { cause },
      );
    }
  }
  const complete = completeResult("modern", "server/discover", result);
  const offered = complete.supportedVersions;
  if (!Array.isArray(offered) || !offered.every((version) => typeof version === "string")) {
    throw new InvalidResultError(
      "server/discover",
      result,
      "supportedVersions is not a list of strings",
    );
  }
  const version = chooseModernVersion(preferred, offered);
  if (version === undefined) {
    throw new NoCommonVersionError(offered, modernVersionsWeSpeak(preferred), true);
  }
  return { version, result: complete };
}

type ProbeOutcome =
  | ({ era: "modern" } & DiscoverOutcome)
  | { era: "legacy"; reason: string }
  /** The channel went away during the probe (a legacy stdio server exiting on unknown input). */
  | { era: "closed"; error: Error };

/**
 * The stdio era probe. Falls back to legacy on any error that is not a recognized modern one,
 * and on silence past `probeTimeoutMs`; never keyed to one particular error code.
 */
export async function probeEra(
  send: DiscoverSender,
  preferred: string,
  probeTimeoutMs: number,
): Promise<ProbeOutcome> {
  try {
    return { era: "modern", ...(await discoverModern(send, preferred, probeTimeoutMs)) };
  } catch (error) {
    if (error instanceof NoCommonVersionError) {
      // A DiscoverResult naming only legacy versions we speak: initialize is the way in.
      if (error.fromDiscoverResult && error.offered.some((version) => isLegacyVersion(version))) {
        return { era: "legacy", reason: "server/discover listed only legacy versions" };
      }
      throw error;
    }
    if (error instanceof ModernHandshakeError) throw error;
    if (error instanceof InvalidResultError || error instanceof InputRequiredError) {
      return { era: "legacy", reason: `server/discover gave no DiscoverResult (${error.message})` };
    }
    if (error instanceof JsonRpcError) {
      if (MODERN_ERROR_CODES.has(error.code)) throw error;
      return {
        era: "legacy",
        reason: `server/discover failed with ${error.code} ${error.message}`,
      };
    }
    // HTTP transports tag their status failures (src/transports/http/client/era.ts): a 400/404/405
    // without a JSON-RPC body says legacy; 401/403 and the rest are failures, never era signals.
    if (error instanceof LocalError && "eraSignal" in error) {
      if (error.eraSignal === "legacy") return { era: "legacy", reason: error.message };
      throw error;
    }
    if (error instanceof LocalError && error.kind === "timeout") {
      return { era: "legacy", reason: `server/discover unanswered after ${probeTimeoutMs} ms` };
    }
    // Failed authorization and the caller's own cancellation say nothing about the server's era
    // and are not a channel that went away: the caller gets them as they are.
    if (error instanceof LocalError && (error.kind === "auth" || error.kind === "aborted")) {
      throw error;
    }
    return { era: "closed", error: error instanceof Error ? error : new Error(String(error)) };
  }
}
