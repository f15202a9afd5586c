/**
 * Refreshing tokens whose client is not known (a token file written before clients were kept
 * with the tokens): a verb never registers a new client to refresh with (the refresh token
 * belongs to the old one), it fails in one line saying to log in again, and the tokens stay for
 * a later `--client-id` with the client they were issued to, which refreshes them. The
 * authorization server is the local JWT issuer, which records registrations and which client
 * made each token request, in front of the everything example; the test is the browser.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ProtectedEverything, startProtectedEverything } from "./protected-everything.js";
import { runCli, startCli, waitFor } from "./run-cli.js";

const cliEnv = (fixture: ProtectedEverything) => ({
  MCPWIRE_HOME: fixture.home,
  BROWSER: "none",
  MCPWIRE_BEARER: undefined,
  MCPWIRE_CLIENT_SECRET: undefined,
});

const storeFile = (fixture: ProtectedEverything) => join(fixture.home, "tokens.json");
const readStore = async (fixture: ProtectedEverything) =>
  JSON.parse(await readFile(storeFile(fixture), "utf8"));

describe("a refresh with no known client", () => {
  let fixture: ProtectedEverything;
  let loggedInAs: string;
  before(async () => {
    // Tokens live 20 s, less than the 30 s refresh margin: every later use refreshes.
    fixture = await startProtectedEverything({ tokenLifetime: 20 });
    const login = startCli(["auth", "login", fixture.url], { env: cliEnv(fixture) });
    const printed = await waitFor("the printed URL", () => {
      if (login.child.exitCode !== null) throw new Error(`exited: ${login.stderr()}`);
      return /^\s+(http:\/\/\S+\/authorize\?\S+)$/m.exec(login.stderr())?.[1];
    });
    loggedInAs = new URL(printed).searchParams.get("client_id") as string;
    const page = await fetch(printed);
    await page.body?.cancel();
    const run = await login.done;
    assert.equal(run.code, 0, run.stderr);
    // As a token file from before clients were kept: the tokens alone.
    const store = await readStore(fixture);
    store.clients = {};
    await writeFile(storeFile(fixture), JSON.stringify(store), { mode: 0o600 });
  });
  after(() => fixture.close());

  it("fails in one line saying to log in again, registering nothing, the tokens kept", async () => {
    const held = (await readStore(fixture)).tokens[fixture.url];
    const registrations = fixture.as.hits.get("/register");
    const seen = fixture.as.flows.clientRequests.length;
    const call = await runCli(["call", fixture.url, "test_simple_text", "{}"], {
      env: cliEnv(fixture),
    });
    assert.equal(call.code, 1);
    assert.equal(call.stdout, "");
    assert.match(
      call.stderr,
      new RegExp(
        `^mcpwire: authorization failed \\(refresh\\): [^\\n]*run mcpwire auth login ${fixture.url}\\n$`,
      ),
    );
    for (const secret of [held.accessToken, held.refreshToken]) {
      assert.ok(!call.stderr.includes(secret), "a token was shown");
    }
    assert.equal(fixture.as.hits.get("/register"), registrations, "no client was registered");
    assert.deepEqual(fixture.as.flows.clientRequests.slice(seen), [], "no token request was made");
    assert.deepEqual((await readStore(fixture)).tokens[fixture.url], held, "the tokens stay");
  });

  it("refreshes them as the client given with --client-id, registering nothing", async () => {
    const registrations = fixture.as.hits.get("/register");
    const seen = fixture.as.flows.clientRequests.length;
    const call = await runCli(
      ["call", fixture.url, "test_simple_text", "{}", "--client-id", loggedInAs],
      { env: cliEnv(fixture) },
    );
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /simple text response/);
    const refreshes = fixture.as.flows.clientRequests.slice(seen);
    assert.ok(refreshes.length >= 1, "the tokens were refreshed");
    for (const request of refreshes) {
      assert.deepEqual([request.grantType, request.clientId], ["refresh_token", loggedInAs]);
    }
    assert.equal(fixture.as.flows.refreshRefused.count, 0);
    assert.equal(fixture.as.hits.get("/register"), registrations, "no client was registered");
  });
});
