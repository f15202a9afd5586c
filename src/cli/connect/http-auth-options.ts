/**
 * The authorization options of the HTTP verbs and their usage text, apart from http-auth.ts so
 * that `mcpwire --help` can show them without loading the token store and the HTTP client.
 */
import type { OptionKind } from "../core/args.js";

export const AUTH_OPTIONS: Record<string, OptionKind> = {
  bearer: "value",
  "bearer-file": "value",
  "client-id": "value",
  "client-secret": "value",
  "client-issuer": "value",
  "client-metadata-url": "value",
  scope: "value",
  grant: "value",
  dpop: "flag",
};

export const AUTH_USAGE = `Authorization (HTTP): --bearer <token> (or --bearer-file <file>, or MCPWIRE_BEARER),
         --client-id <id> [--client-secret <s> (or MCPWIRE_CLIENT_SECRET)] [--client-issuer <url>
         (the authorization server the client belongs to; default: the first one it is used with,
         recorded)], --client-metadata-url <url>,
         --scope "<scopes>", --grant client_credentials (no browser, nothing stored),
         --dpop (new tokens bound to a fresh key, RFC 9449, even where nobody says DPoP);
         otherwise the tokens of "mcpwire auth login <url>" are used and refreshed.`;
