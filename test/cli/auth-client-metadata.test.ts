/**
 * `mcpwire auth login <url> --client-metadata-url <url>` keeps that client identity with the
 * tokens: later verbs refresh as that client (its URL as client_id) and `auth logout` revokes
 * with it, neither given the flag again and neither registering a client (DCR). The
 * authorization server is the local JWT issuer taking client ID metadata documents (the
 * document given to it as if fetched from its https URL) in front of the everything example;
 * the test is the browser.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ProtectedEverything, startProtectedEverything } from "./protected-everything.js";
import { runCli, startCli, waitFor } from "./run-cli.js";

const DOCUMENT_URL = "https://client.example/mcpwire/client-metadata.json";

const cliEnv = (fixture: ProtectedEverything) => ({
  MCPWIRE_HOME: fixture.home,
  BROWSER: "none",
  MCPWIRE_BEARER: undefined,
  MCPWIRE_CLIENT_SECRET: undefined,
});

const readStore = async (fixture: ProtectedEverything) =>
  JSON.parse(await readFile(join(fixture.home, "tokens.json"), "utf8"));

describe("mcpwire auth login --client-metadata-url", () => {
  let fixture: ProtectedEverything;
  before(async () => {
    fixture = await startProtectedEverything({
      // Tokens live 20 s, less than the 30 s refresh margin: every later use refreshes.
      tokenLifetime: 20,
      clientMetadataDocuments: {
        [DOCUMENT_URL]: {
          client_id: DOCUMENT_URL,
          redirect_uris: ["http://127.0.0.1/callback"],
        },
      },
      revocation: true,
    });
  });
  after(() => fixture.close());

  it("logs in as the document's client and keeps that identity with the tokens", async () => {
    const login = startCli(["auth", "login", fixture.url, "--client-metadata-url", DOCUMENT_URL], {
      env: cliEnv(fixture),
    });
    const printed = await waitFor("the printed URL", () => {
      if (login.child.exitCode !== null) throw new Error(`exited: ${login.stderr()}`);
      return /^\s+(http:\/\/\S+\/authorize\?\S+)$/m.exec(login.stderr())?.[1];
    });
    assert.equal(new URL(printed).searchParams.get("client_id"), DOCUMENT_URL);
    const page = await fetch(printed);
    assert.equal(page.status, 200);
    await page.body?.cancel();
    const run = await login.done;
    assert.equal(run.code, 0, run.stderr);
    const store = await readStore(fixture);
    assert.equal(store.clients[fixture.as.issuer].clientId, DOCUMENT_URL);
    assert.equal(fixture.as.hits.get("/register"), undefined, "no client was registered");
  });

  it("refreshes from another verb as that client, without the flag and without registering", async () => {
    const before = await readStore(fixture);
    const seen = fixture.as.flows.clientRequests.length;
    const call = await runCli(["call", fixture.url, "test_simple_text", "{}"], {
      env: cliEnv(fixture),
    });
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /simple text response/);
    const refreshes = fixture.as.flows.clientRequests
      .slice(seen)
      .filter((request) => request.grantType === "refresh_token");
    // At least one (with 20 s tokens each request of the call may renew), all as that client.
    assert.ok(refreshes.length >= 1, "the tokens were refreshed");
    for (const request of refreshes) assert.equal(request.clientId, DOCUMENT_URL);
    assert.equal(fixture.as.flows.refreshRefused.count, 0);
    assert.equal(fixture.as.hits.get("/register"), undefined, "no client was registered");
    const after = await readStore(fixture);
    assert.notEqual(after.tokens[fixture.url].accessToken, before.tokens[fixture.url].accessToken);
  });

  it("auth logout revokes as that client, without the flag", async () => {
    const held = (await readStore(fixture)).tokens[fixture.url];
    const seen = fixture.as.flows.clientRequests.length;
    const logout = await runCli(["auth", "logout", fixture.url], { env: cliEnv(fixture) });
    assert.equal(logout.code, 0, logout.stderr);
    assert.equal(logout.stderr, "");
    assert.equal(
      logout.stdout,
      `logged out of ${fixture.url} (tokens revoked at ${fixture.as.issuer}); forgot the client kept for ${fixture.as.issuer}\n`,
    );
    const revocations = fixture.as.flows.clientRequests
      .slice(seen)
      .filter((request) => request.path === "/revoke");
    assert.deepEqual(
      revocations.map((request) => request.clientId),
      [DOCUMENT_URL, DOCUMENT_URL],
    );
    // The revoked refresh token no longer works.
    const refused = fixture.as.flows.refreshRefused.count;
    const answer = await fetch(`${fixture.as.issuer}/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: held.refreshToken,
        client_id: DOCUMENT_URL,
        resource: fixture.url,
      }),
    });
    assert.equal(answer.status, 400);
    await answer.body?.cancel();
    assert.equal(fixture.as.flows.refreshRefused.count, refused + 1);
    assert.equal(fixture.as.hits.get("/register"), undefined, "no client was registered");
  });
});
