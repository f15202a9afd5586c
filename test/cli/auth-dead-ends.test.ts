/**
 * Where `mcpwire auth login` and the OAuth flags used to leave a person stuck (issue 25 D7): a
 * registration the authorization server forgot (the login page only showed an error), a refusal
 * for lack of scope, a wrong client secret (refused with a challenge), and what `auth status`
 * and `auth logout URL` say and do about the clients kept. The authorization server is the local
 * JWT issuer in front of the everything example; the test is the browser.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JwtIssuerOptions } from "../auth/jwt-issuer.js";
import { type ProtectedEverything, startProtectedEverything } from "./protected-everything.js";
import { type Running, runCli, startCli, waitFor } from "./run-cli.js";

const env = (fixture: ProtectedEverything) => ({
  MCPWIRE_HOME: fixture.home,
  BROWSER: "none",
  MCPWIRE_BEARER: undefined,
  MCPWIRE_CLIENT_SECRET: undefined,
});

const AUTHORIZE = /^\s+(http:\/\/\S+\/authorize\?\S+)$/m;

/** Runs `auth login`, playing the browser: follows the printed URL to the loopback listener. */
async function login(fixture: ProtectedEverything, ...flags: string[]) {
  const running: Running = startCli(["auth", "login", fixture.url, ...flags], {
    env: env(fixture),
  });
  const url = await waitFor("the printed URL", () => {
    if (running.child.exitCode !== null) return "";
    return AUTHORIZE.exec(running.stderr())?.[1];
  });
  if (url !== "") {
    const page = await fetch(url);
    await page.body?.cancel();
  }
  return { run: await running.done, clientId: url && new URL(url).searchParams.get("client_id") };
}

async function started(options: JwtIssuerOptions = {}): Promise<ProtectedEverything> {
  return startProtectedEverything(options);
}

describe("auth login: a registration the authorization server forgot", () => {
  let fixture: ProtectedEverything;
  before(async () => {
    fixture = await started();
  });
  after(() => fixture?.close());

  it("registers again before the person is sent to authorize", async () => {
    const first = await login(fixture);
    assert.equal(first.run.code, 0, first.run.stderr);
    fixture.as.flows.forgetRegistrations();
    const registrations = fixture.as.hits.get("/register");
    const second = await login(fixture);
    assert.equal(second.run.code, 0, second.run.stderr);
    assert.notEqual(second.clientId, first.clientId, "the forgotten client was sent to authorize");
    assert.equal(fixture.as.hits.get("/register"), (registrations ?? 0) + 1);
    const call = await runCli(["call", fixture.url, "test_simple_text", "{}"], {
      env: env(fixture),
    });
    assert.equal(call.code, 0, call.stderr);
  });

  it("auth status shows the client kept; auth logout URL forgets it with the tokens", async () => {
    const status = await runCli(["auth", "status"], { env: env(fixture) });
    assert.equal(status.code, 0, status.stderr);
    assert.match(
      status.stdout,
      new RegExp(
        `^clients:\\n  ${fixture.as.issuer}: public-\\S+ \\(registered by mcpwire\\)$`,
        "m",
      ),
    );
    const logout = await runCli(["auth", "logout", fixture.url], { env: env(fixture) });
    assert.equal(logout.code, 0, logout.stderr);
    assert.match(logout.stdout, /forgot the client kept for http:\/\/127\.0\.0\.1:\d+/);
    const kept = JSON.parse(await readFile(join(fixture.home, "tokens.json"), "utf8"));
    assert.deepEqual(kept.clients, {});
    assert.deepEqual(kept.tokens, {});
  });
});

describe("auth login and --grant: refusals that say what to do", () => {
  let fixture: ProtectedEverything;
  before(async () => {
    fixture = await started({ requireScope: true, basicChallenge: true });
    fixture.as.clients.set("robot", { secret: "robot-secret", scopes: ["mcp"] });
  });
  after(() => fixture?.close());

  it("a refusal for lack of scope suggests --scope", async () => {
    const { run } = await login(fixture);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /authorization failed \(authorize\): .*access_denied/);
    assert.match(
      run.stderr,
      /^hint: if the authorization server wants scopes, name them: --scope/m,
    );
    const cc = await runCli(
      ["call", fixture.url, "test_simple_text", "{}", "--grant", "client_credentials"].concat([
        "--client-id",
        "robot",
        "--client-issuer",
        fixture.as.issuer,
      ]),
      { env: { ...env(fixture), MCPWIRE_CLIENT_SECRET: "robot-secret" } },
    );
    assert.equal(cc.code, 1);
    assert.match(cc.stderr, /authorization failed \(token\): .*invalid_scope/);
    assert.match(cc.stderr, /^hint: if the authorization server wants scopes/m);
  });

  it("a wrong client secret says invalid_client, even when refused with a challenge", async () => {
    const run = await runCli(
      [
        "call",
        fixture.url,
        "test_simple_text",
        "{}",
        "--grant",
        "client_credentials",
        "--client-id",
        "robot",
        "--client-issuer",
        fixture.as.issuer,
        "--scope",
        "mcp",
      ],
      { env: { ...env(fixture), MCPWIRE_CLIENT_SECRET: "not-the-secret" } },
    );
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^mcpwire: authorization failed \(token\): the server answered HTTP 401 invalid_client: the client id or its credentials are not accepted\n/,
    );
    assert.match(run.stderr, /^hint: check --client-id and its secret/m);
    assert.ok(!run.stderr.includes("not-the-secret"));
  });
});

describe("the everything example with --auth-issuer", () => {
  it("prints the URL its tokens are for", async () => {
    const fixture = await started();
    try {
      const line = `tokens from ${fixture.as.issuer} must be for ${fixture.url}`;
      await waitFor("the resource line", () =>
        fixture.server.stdout().split("\n").includes(line) ? true : undefined,
      );
    } finally {
      await fixture.close();
    }
  });
});
