/**
 * `--dpop`: new tokens bound to a fresh key (RFC 9449) even where no server names DPoP: an
 * authorization server that binds a token to the key of a proof without listing DPoP in its
 * metadata, and an mcpwire server that takes DPoP-bound tokens as well as bearer ones. Without
 * the flag the CLI gets a bearer token; with it, a bound one that the server accepts with a
 * proof on each request. A bearer token cannot be bound: `--dpop` with one is a usage error.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type JwtIssuer, startJwtIssuer } from "../auth/jwt-issuer.js";
import { type Protected, startProtected } from "../auth/resource-server-fixtures.js";
import { runCli } from "./run-cli.js";

const SECRET = "s3cret-dpop-client";

let as: JwtIssuer;
let rs: Protected;
let env: Record<string, string | undefined>;
before(async () => {
  // A store of our own (nothing is stored with --grant), nothing from the environment.
  env = {
    MCPWIRE_HOME: await mkdtemp(join(tmpdir(), "mcpwire-dpop-")),
    MCPWIRE_BEARER: undefined,
    MCPWIRE_CLIENT_SECRET: SECRET,
  };
  as = await startJwtIssuer({ dpop: { algorithms: ["ES256"], advertise: false } });
  as.clients.set("robot", { secret: SECRET, scopes: ["mcp"] });
  rs = await startProtected({ issuer: as.issuer, requiredScopes: ["mcp"], dpop: true });
});
after(async () => {
  await rs.close();
  await as.close();
  await rm(env.MCPWIRE_HOME as string, { recursive: true, force: true });
});
const whoami = (extra: string[]) =>
  runCli(
    [
      "call",
      rs.url,
      "whoami",
      "{}",
      "--client-id",
      "robot",
      "--grant",
      "client_credentials",
      ...extra,
    ],
    { env },
  );

describe("mcpwire --dpop", () => {
  it("binds the token to a fresh key where nobody names DPoP (a bearer token without it)", async () => {
    const plain = await whoami([]);
    assert.equal(plain.code, 0, plain.stderr);
    const bound = await whoami(["--dpop", "--verbose"]);
    assert.equal(bound.code, 0, bound.stderr);
    assert.match(bound.stdout, /"subject":\s*"robot"/);
    assert.deepEqual(
      as.tokenRequests.map((r) => r.dpop),
      [false, true],
    );
    const [bearer, dpop] = as.issued.map((token) =>
      JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()),
    );
    assert.equal(bearer.cnf, undefined);
    assert.ok(dpop.cnf?.jkt, "bound to the proof's key");
    for (const token of as.issued) {
      assert.ok(
        !bound.stdout.includes(token) && !bound.stderr.includes(token),
        "a token was shown",
      );
    }
  });

  it("refuses --dpop with a bearer token", async () => {
    const run = await runCli(["call", rs.url, "whoami", "{}", "--bearer", "abc", "--dpop"], {
      env,
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--dpop binds OAuth tokens to a key: a bearer token cannot be bound/);
  });
});
