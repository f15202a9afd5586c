/** Checks of a protected resource's configuration, made when it is built, not per request. */
import { isLoopbackUrl } from "../../transports/http/client/auth.js";

/**
 * An authorization server URL (issuer, JWKS, introspection endpoint) the resource server may
 * fetch: absolute, https (plain http for loopback addresses only: anyone on the path could
 * otherwise hand us keys or verdicts).
 */
export function checkServerUrl(where: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${where} must be an absolute URL`);
  }
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && isLoopbackUrl(url)) return;
  throw new Error(`${where} must be https (plain http is allowed for loopback addresses only)`);
}
