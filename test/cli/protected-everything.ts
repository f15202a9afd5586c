/**
 * The everything example as an OAuth protected resource (`--http --auth-issuer`) in front of a
 * local JWT authorization server, for the CLI's authorization tests. `url` is the resource as
 * the metadata names it (http://localhost:<port>/mcp), the URL a user gives the CLI.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type JwtIssuer, type JwtIssuerOptions, startJwtIssuer } from "../auth/jwt-issuer.js";
import {
  EVERYTHING_SERVER,
  listeningAddress,
  type Running,
  startProcess,
  stop,
} from "./run-cli.js";

export interface ProtectedEverything {
  as: JwtIssuer;
  server: Running;
  url: string;
  /** A fresh MCPWIRE_HOME (token store) for this fixture, removed by close(). */
  home: string;
  close(): Promise<void>;
}

export async function startProtectedEverything(
  options: JwtIssuerOptions = {},
): Promise<ProtectedEverything> {
  const as = await startJwtIssuer(options);
  const server = startProcess(process.execPath, [
    EVERYTHING_SERVER,
    "--http",
    "--port",
    "0",
    "--auth-issuer",
    as.issuer,
  ]);
  const home = await mkdtemp(join(tmpdir(), "mcpwire-auth-home-"));
  try {
    const listening = new URL(await listeningAddress(server, "stdout"));
    return {
      as,
      server,
      url: `http://localhost:${listening.port}/mcp`,
      home,
      close: async () => {
        await stop(server);
        await as.close();
        await rm(home, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stop(server);
    await as.close();
    await rm(home, { recursive: true, force: true });
    throw error;
  }
}
