/**
 * A pre-registered client (--client-id/--client-secret) belongs to one authorization server
 * (issue 25 B1): --client-issuer's, else the first it is used with, recorded in the token file.
 * Two real authorization servers (the local JWT issuer, twice), each in front of its own
 * everything example, both knowing the same client id: a server that points to the other one
 * gets nothing from us, not even a metadata request, until --client-issuer names it.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ProtectedEverything, startProtectedEverything } from "./protected-everything.js";
import { runCli } from "./run-cli.js";

const SECRET = "robot-secret-value";

describe("--client-id bound to its authorization server", () => {
  let first: ProtectedEverything;
  let second: ProtectedEverything;
  const env = () => ({
    MCPWIRE_HOME: first.home,
    BROWSER: "none",
    MCPWIRE_BEARER: undefined,
    MCPWIRE_CLIENT_SECRET: SECRET,
  });
  const recorded = async () =>
    JSON.parse(await readFile(join(first.home, "tokens.json"), "utf8")).clientIssuers;
  const call = (fixture: ProtectedEverything, ...flags: string[]) =>
    runCli(["call", fixture.url, "test_simple_text", "{}", "--client-id", "robot", ...flags], {
      env: env(),
    });
  const heard = (fixture: ProtectedEverything) => JSON.stringify([...fixture.as.hits]);

  before(async () => {
    first = await startProtectedEverything();
    second = await startProtectedEverything();
    for (const fixture of [first, second]) {
      fixture.as.clients.set("robot", { secret: SECRET, scopes: [] });
    }
  });
  after(async () => {
    await first?.close();
    await second?.close();
  });

  it("records the first issuer used, and refuses another before it hears anything", async () => {
    const ok = await call(first, "--grant", "client_credentials");
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(await recorded(), { robot: first.as.issuer });

    const before = heard(second);
    const refused = await call(second, "--grant", "client_credentials");
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      `mcpwire: authorization failed (registration): the client robot belongs to ${first.as.issuer} (recorded in ${join(first.home, "tokens.json")} when first used), and the server uses ${second.as.issuer}: nothing was sent there (--client-issuer ${second.as.issuer} if the client is registered there)\n`,
    );
    assert.equal(heard(second), before, "the other authorization server heard from us");
    assert.equal(second.as.tokenRequests.length, 0);
  });

  it("--client-issuer names the issuer: another is refused, the named one is used and recorded", async () => {
    const before = heard(second);
    const wrong = await call(
      second,
      "--grant",
      "client_credentials",
      "--client-issuer",
      first.as.issuer,
    );
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /belongs to \S+ \(--client-issuer\), and the server uses/);
    assert.equal(heard(second), before);

    const named = await call(
      second,
      "--grant",
      "client_credentials",
      "--client-issuer",
      second.as.issuer,
    );
    assert.equal(named.code, 0, named.stderr);
    assert.equal(second.as.tokenRequests.length, 1);
    assert.deepEqual(await recorded(), { robot: second.as.issuer });
  });

  it("auth login with a pre-registered client refuses a server of another issuer", async () => {
    const before = heard(first);
    const login = await runCli(["auth", "login", first.url, "--client-id", "robot"], {
      env: env(),
    });
    assert.equal(login.code, 1);
    assert.match(
      login.stderr,
      /the client robot belongs to \S+ \(recorded in .* when first used\)/,
    );
    assert.equal(heard(first), before, "the other authorization server heard from us");
  });

  it("--client-issuer needs --client-id and a URL", async () => {
    for (const [flags, message] of [
      [["--client-issuer", "https://as.example"], /--client-issuer goes with --client-id/],
      [["--client-id", "x", "--client-issuer", "nope"], /--client-issuer takes the issuer's URL/],
    ] as const) {
      const run = await runCli(["call", first.url, "test_simple_text", "{}", ...flags], {
        env: env(),
      });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    }
  });
});
