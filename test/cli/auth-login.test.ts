/**
 * `mcpwire auth login|status|logout` against the everything example protected by a local JWT
 * issuer. The test is the browser: it reads the URL the CLI prints and fetches it, following
 * redirects to the CLI's loopback listener (or pastes the redirect address, or approves the
 * device code at the issuer). Then every verb uses the stored tokens, refreshing them; status
 * shows everything but the tokens; logout forgets them.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ProtectedEverything, startProtectedEverything } from "./protected-everything.js";
import {
  type CliRun,
  EVERYTHING_SERVER,
  listeningAddress,
  type Running,
  runCli,
  startCli,
  startProcess,
  stop,
  waitFor,
} from "./run-cli.js";

/** Our own store and no browser: the test plays the browser. */
const cliEnv = (fixture: ProtectedEverything) => ({
  MCPWIRE_HOME: fixture.home,
  BROWSER: "none",
  MCPWIRE_BEARER: undefined,
  MCPWIRE_CLIENT_SECRET: undefined,
});

const printedUrl = (running: Running, what: RegExp) =>
  waitFor("the printed URL", () => {
    if (running.child.exitCode !== null) throw new Error(`exited: ${running.stderr()}`);
    return what.exec(running.stderr())?.[1];
  });

const storedTokens = async (fixture: ProtectedEverything) =>
  JSON.parse(await readFile(join(fixture.home, "tokens.json"), "utf8")).tokens[fixture.url];

function assertNoSecrets(run: CliRun, secrets: string[]): void {
  for (const secret of secrets) {
    assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), "a token was shown");
  }
}

describe("mcpwire auth login (browser on this machine)", () => {
  let fixture: ProtectedEverything;
  before(async () => {
    // Tokens live 20 s, less than the 30 s refresh margin: every later use refreshes.
    fixture = await startProtectedEverything({ tokenLifetime: 20 });
  });
  after(() => fixture.close());

  it("logs in through the loopback listener, refusing a callback with another state", async () => {
    const login = startCli(["auth", "login", fixture.url], { env: cliEnv(fixture) });
    const url = new URL(await printedUrl(login, /^\s+(http:\/\/\S+\/authorize\?\S+)$/m));
    const redirectUri = new URL(url.searchParams.get("redirect_uri") as string);
    assert.equal(redirectUri.hostname, "127.0.0.1");
    const forged = await fetch(`${redirectUri.href}?code=stolen&state=forged`);
    assert.equal(forged.status, 400);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /the terminal says whether the authorization succeeded/);
    const run = await login.done;
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^logged in to ${fixture.url} .*at ${fixture.as.issuer}`));
    assert.equal((await stat(join(fixture.home, "tokens.json"))).mode & 0o777, 0o600);
    assert.ok(fixture.as.flows.refreshIssued.length >= 1);
  });

  it("uses and refreshes the stored tokens in every verb, showing none of them", async () => {
    const before = await storedTokens(fixture);
    const refreshes = fixture.as.flows.refreshIssued.length;
    const call = await runCli(["call", fixture.url, "test_simple_text", "{}", "--verbose"], {
      env: cliEnv(fixture),
    });
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /simple text response/);
    const after = await storedTokens(fixture);
    assert.notEqual(after.accessToken, before.accessToken, "refreshed and stored");
    assert.ok(fixture.as.flows.refreshIssued.length > refreshes);
    const discover = await runCli(["discover", fixture.url], { env: cliEnv(fixture) });
    assert.equal(discover.code, 0, discover.stderr);
    assertNoSecrets(call, [...fixture.as.issued, ...fixture.as.flows.refreshIssued]);
  });

  it("lets two processes renew the same tokens at once, the rotation never broken", async () => {
    const refreshes = fixture.as.flows.refreshIssued.length;
    for (let round = 0; round < 3; round++) {
      const runs = await Promise.all(
        [0, 1].map(() =>
          runCli(["call", fixture.url, "test_simple_text", "{}"], { env: cliEnv(fixture) }),
        ),
      );
      for (const run of runs) assert.equal(run.code, 0, run.stderr);
    }
    // Every use renews (20 s tokens): six processes, each renewing from the last one's tokens.
    assert.ok(fixture.as.flows.refreshIssued.length >= refreshes + 6);
    assert.equal(fixture.as.flows.refreshRefused.count, 0);
  });

  it("shows status without tokens, then logs out", async () => {
    const secrets = [...fixture.as.issued, ...fixture.as.flows.refreshIssued];
    const text = await runCli(["auth", "status"], { env: cliEnv(fixture) });
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(`^${fixture.url}\n  authorization server: ${fixture.as.issuer}\n`),
    );
    assert.match(text.stdout, /expires: in \d+ min .*refreshable/);
    const json = await runCli(["auth", "status", fixture.url, "--json"], { env: cliEnv(fixture) });
    assert.equal(json.code, 0, json.stderr);
    const [entry] = JSON.parse(json.stdout);
    assert.equal(entry.resource, fixture.url);
    assert.equal(entry.issuer, fixture.as.issuer);
    assert.equal(entry.refreshable, true);
    assertNoSecrets(text, secrets);
    assertNoSecrets(json, secrets);

    const logout = await runCli(["auth", "logout", fixture.url], { env: cliEnv(fixture) });
    assert.equal(logout.code, 0, logout.stderr);
    // This authorization server lists no revocation endpoint: nothing to revoke, nothing to warn.
    assert.equal(
      logout.stdout,
      `logged out of ${fixture.url}; forgot the client kept for ${fixture.as.issuer}\n`,
    );
    assert.equal(logout.stderr, "");
    const none = await runCli(["auth", "status", fixture.url], { env: cliEnv(fixture) });
    assert.equal(none.code, 1);
    assert.match(none.stdout, /no tokens for .*run mcpwire auth login/);
    const call = await runCli(["call", fixture.url, "test_simple_text", "{}"], {
      env: cliEnv(fixture),
    });
    assert.equal(call.code, 1);
    assert.match(call.stderr, /run: mcpwire auth login/);
    const all = await runCli(["auth", "logout"], { env: cliEnv(fixture) });
    assert.equal(all.code, 0, all.stderr);
    await assert.rejects(stat(join(fixture.home, "tokens.json")), { code: "ENOENT" });
  });

  it("reports a corrupt token file clearly, and logout removes it", async () => {
    const file = join(fixture.home, "tokens.json");
    await writeFile(file, "{ this is not json");
    const status = await runCli(["auth", "status"], { env: cliEnv(fixture) });
    assert.equal(status.code, 1);
    assert.match(status.stderr, /^mcpwire: the token file .* is not valid JSON/);
    assert.doesNotMatch(status.stderr, /\n\s+at /);
    const call = await runCli(["call", fixture.url, "test_simple_text", "{}"], {
      env: cliEnv(fixture),
    });
    assert.equal(call.code, 1);
    assert.match(call.stderr, /warning: the token file .* is not valid JSON/);
    assert.match(call.stderr, /run: mcpwire auth login/);
    const logout = await runCli(["auth", "logout"], { env: cliEnv(fixture) });
    assert.equal(logout.code, 0, logout.stderr);
    await assert.rejects(stat(file), { code: "ENOENT" });
  });
});

describe("mcpwire auth login --paste", () => {
  let fixture: ProtectedEverything;
  before(async () => {
    fixture = await startProtectedEverything();
  });
  after(() => fixture.close());

  it("takes the pasted redirect address", async () => {
    const login = startCli(["auth", "login", fixture.url, "--paste"], {
      env: cliEnv(fixture),
      stdin: true,
    });
    const url = await printedUrl(login, /^\s+(http:\/\/\S+\/authorize\?\S+)$/m);
    // The browser stops at the redirect (nothing listens there): the user copies its address.
    const answer = await fetch(url, { redirect: "manual" });
    assert.equal(answer.status, 302);
    login.child.stdin!.end(`${answer.headers.get("location")}\n`);
    const run = await login.done;
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^logged in to /);
    const call = await runCli(["call", fixture.url, "test_simple_text", "{}"], {
      env: cliEnv(fixture),
    });
    assert.equal(call.code, 0, call.stderr);
  });

  it("refuses a bare code and an address with another login's state, asking for no token", async () => {
    for (const paste of [
      (location: URL) => location.searchParams.get("code") as string,
      (location: URL) => {
        location.searchParams.set("state", "another-login");
        return location.href;
      },
    ]) {
      const login = startCli(["auth", "login", fixture.url, "--paste"], {
        env: cliEnv(fixture),
        stdin: true,
      });
      const url = await printedUrl(login, /^\s+(http:\/\/\S+\/authorize\?\S+)$/m);
      const answer = await fetch(url, { redirect: "manual" });
      const tokenRequests = fixture.as.flows.clientRequests.length;
      login.child.stdin!.end(`${paste(new URL(answer.headers.get("location") as string))}\n`);
      const run = await login.done;
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^mcpwire: authorization failed \(authorize\): .*state/m);
      assert.equal(fixture.as.flows.clientRequests.length, tokenRequests, "a code was redeemed");
    }
  });

  it("fails in one line when nothing is pasted", async () => {
    const login = startCli(["auth", "login", fixture.url, "--paste"], {
      env: cliEnv(fixture),
      stdin: true,
    });
    await printedUrl(login, /^\s+(http:\/\/\S+\/authorize\?\S+)$/m);
    login.child.stdin!.end();
    const run = await login.done;
    assert.equal(run.code, 1);
    assert.match(run.stderr, /mcpwire: authorization failed \(authorize\): nothing was pasted/);
  });
});

describe("mcpwire auth login --device", () => {
  let fixture: ProtectedEverything;
  before(async () => {
    // slow_down's 5 s back-off is test/auth/device-grant.test.ts's, on a mocked clock.
    fixture = await startProtectedEverything();
  });
  after(() => fixture.close());

  const approve = async (userCode: string, action: "approve" | "deny") => {
    const response = await fetch(`${fixture.as.issuer}/device`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ user_code: userCode, action }),
    });
    assert.equal(response.status, 200);
  };

  it("shows the verification URI and user code, polls until approved, and gets in", async () => {
    const login = startCli(["auth", "login", fixture.url, "--device"], { env: cliEnv(fixture) });
    const code = await printedUrl(login, /visit \S+\/device and enter the code (\S+)/);
    await approve(code, "approve");
    const run = await login.done;
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^logged in to /);
    assert.equal(fixture.as.flows.devicePolls.get("granted"), 1);
    const call = await runCli(["call", fixture.url, "test_simple_text", "{}"], {
      env: cliEnv(fixture),
    });
    assert.equal(call.code, 0, call.stderr);
  });

  it("reports a denied authorization in one line", async () => {
    const login = startCli(["auth", "login", fixture.url, "--device"], { env: cliEnv(fixture) });
    const code = await printedUrl(login, /enter the code (\S+)/);
    await approve(code, "deny");
    const run = await login.done;
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^mcpwire: authorization failed \(authorize\): the authorization was denied\nhint: if the authorization server wants scopes, name them[^\n]*\n$/m,
    );
  });
});

describe("mcpwire auth login --device opening the browser", () => {
  it("opens the server's verification URL only when it is a plain http(s) one", async () => {
    for (const hostile of [false, true]) {
      const fixture = await startProtectedEverything(
        hostile ? { verificationUriComplete: "file:///etc/passwd" } : {},
      );
      try {
        const script = join(fixture.home, "browser.mjs");
        const opened = join(fixture.home, "opened.txt");
        await writeFile(
          script,
          `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(opened)}, process.argv[2] + "\\n");\n`,
        );
        const login = startCli(["auth", "login", fixture.url, "--device"], {
          env: { ...cliEnv(fixture), BROWSER: `${process.execPath} ${script}` },
        });
        const code = await printedUrl(login, /enter the code (\S+)/);
        if (!hostile) {
          // The file exists a moment before its line is in it.
          const url = await waitFor("the browser", () => {
            const line = existsSync(opened) ? readFileSync(opened, "utf8") : "";
            return line.endsWith("\n") ? line : undefined;
          });
          assert.equal(url, `${fixture.as.issuer}/device?user_code=${code}\n`);
        }
        await fetch(`${fixture.as.issuer}/device`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ user_code: code, action: "approve" }),
        });
        const run = await login.done;
        assert.equal(run.code, 0, run.stderr);
        if (hostile) {
          assert.equal(existsSync(opened), false, "a file: URL was opened");
          assert.match(run.stderr, /or open file:\/\/\/etc\/passwd/);
        }
      } finally {
        await fixture.close();
      }
    }
  });
});

describe("mcpwire auth usage", () => {
  it("refuses what cannot work", async () => {
    const cases: [string[], RegExp][] = [
      [["auth"], /auth needs an action/],
      [["auth", "frob"], /unknown auth action/],
      [["auth", "login"], /needs the server's URL/],
      [["auth", "login", "tcp://127.0.0.1:9"], /http\(s\) URLs/],
      [["auth", "login", "http://127.0.0.1:9/mcp", "--paste", "--device"], /exclude each other/],
      [["auth", "login", "http://127.0.0.1:9/mcp", "--bearer", "x"], /needs no login/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, { env: { MCPWIRE_BEARER: undefined } });
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message);
    }
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const nobody = await runCli(["auth", "login", `http://127.0.0.1:${port}/mcp`]);
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /^mcpwire: nothing is listening at http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const open = startProcess(process.execPath, [EVERYTHING_SERVER, "--http", "--port", "0"]);
    try {
      const url = await listeningAddress(open, "stdout");
      const home = await mkdtemp(join(tmpdir(), "mcpwire-auth-open-"));
      const run = await runCli(["auth", "login", url], { env: { MCPWIRE_HOME: home } });
      await rm(home, { recursive: true, force: true });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /did not ask for authorization: nothing to log in to/);
    } finally {
      await stop(open);
    }
    const help = await runCli(["auth", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: mcpwire auth login <url>/);
  });
});
