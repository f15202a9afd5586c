/**
 * The redirect handlers for a person: the loopback listener (answers only its own state, a
 * small page with the server's words escaped, a timeout, Ctrl-C, closed afterwards), what may
 * be pasted, and the browser opener (the URL as one argument, no failure without a browser).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openBrowser } from "../../src/auth/open-browser.js";
import { loopbackRedirect } from "../../src/auth/redirect-loopback.js";
import { pastedParameters } from "../../src/auth/redirect-paste.js";
import { AuthorizationError } from "../../src/transports/http/client/auth.js";
import { waitFor } from "../cli/run-cli.js";

const AUTHORIZE = new URL("https://as.example/authorize?state=the-state&client_id=c");

describe("loopbackRedirect", () => {
  it("answers its own state only, and resolves with the callback's parameters", async () => {
    const shown: string[] = [];
    const redirect = await loopbackRedirect({ show: (url) => shown.push(url), openBrowser: false });
    const callback = new URL(redirect.redirectUri);
    assert.equal(callback.hostname, "127.0.0.1");
    assert.notEqual(callback.port, "");
    const answer = redirect.authorize(AUTHORIZE);
    assert.deepEqual(shown, [AUTHORIZE.href]);
    assert.equal((await fetch(new URL("/elsewhere", callback))).status, 404);
    const forged = await fetch(`${callback.href}?code=x&state=another`);
    assert.equal(forged.status, 400);
    assert.match(await forged.text(), /does not belong to the login in progress/);
    const good = await fetch(`${callback.href}?code=the-code&state=the-state&iss=x`);
    assert.equal(good.status, 200);
    assert.match(good.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    assert.equal((await answer).get("code"), "the-code");
    // Closed once answered.
    await assert.rejects(fetch(callback.href));
  });

  it("shows nothing of a refusal on the page (its iss is unchecked), and passes it on", async () => {
    const redirect = await loopbackRedirect({ show: () => {}, openBrowser: false });
    const answer = redirect.authorize(AUTHORIZE);
    const page = await fetch(
      `${redirect.redirectUri}?error=${encodeURIComponent("<b>call 555-0100</b>")}&error_description=${encodeURIComponent("your account is locked: visit evil.example")}&state=the-state&iss=https://not-the-issuer.example`,
    );
    const html = await page.text();
    for (const quoted of ["555-0100", "call", "evil.example", "locked", "not-the-issuer"]) {
      assert.ok(!html.includes(quoted), `the page shows ${quoted}`);
    }
    assert.match(html, /the terminal says whether the authorization succeeded/);
    assert.equal((await answer).get("error"), "<b>call 555-0100</b>");
  });

  it("gives up after its timeout, and on abort, closing the listener", async () => {
    const slow = await loopbackRedirect({ show: () => {}, openBrowser: false, timeoutMs: 200 });
    await assert.rejects(slow.authorize(AUTHORIZE), (error: unknown) => {
      assert.ok(error instanceof AuthorizationError);
      assert.match(error.message, /no answer from the browser within 0\.2 s/);
      return true;
    });
    await assert.rejects(fetch(slow.redirectUri));
    const controller = new AbortController();
    const stopped = await loopbackRedirect({
      show: () => controller.abort(),
      openBrowser: false,
      signal: controller.signal,
    });
    await assert.rejects(stopped.authorize(AUTHORIZE), /stopped while waiting for the browser/);
    await assert.rejects(fetch(stopped.redirectUri));
  });
});

describe("pastedParameters", () => {
  it("reads the redirect URL or its query, state and all", () => {
    const url = pastedParameters("http://127.0.0.1:33418/callback?code=a&state=s&iss=i");
    assert.deepEqual(
      [...url],
      [
        ["code", "a"],
        ["state", "s"],
        ["iss", "i"],
      ],
    );
    assert.deepEqual(
      [...pastedParameters("?code=b&state=t")],
      [
        ["code", "b"],
        ["state", "t"],
      ],
    );
    assert.throws(() => pastedParameters("http://[bad/callback?code=x"), AuthorizationError);
  });

  it("refuses a bare code or an address without its state (nothing ties it to this login)", () => {
    for (const text of ["c0de", "code=c0de", "http://127.0.0.1:33418/callback?code=c0de&iss=i"]) {
      assert.throws(
        () => pastedParameters(text),
        (error: unknown) =>
          error instanceof AuthorizationError &&
          /has no state: paste the whole address the browser ended up at/.test(error.message),
      );
    }
  });
});

describe("openBrowser", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcpwire-browser-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("runs $BROWSER with the URL as one argument, and never fails without a browser", async () => {
    const script = join(dir, "browser.mjs");
    const seen = join(dir, "seen.json");
    await writeFile(
      script,
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(seen)}, JSON.stringify(process.argv.slice(2)));\n`,
    );
    const url = "https://as.example/authorize?a=1&b=$(touch x)&c='q' d";
    openBrowser(url, { BROWSER: `${process.execPath} ${script}` });
    const argv = await waitFor("the browser to run", () =>
      existsSync(seen) ? readFileSync(seen, "utf8") : undefined,
    );
    assert.deepEqual(JSON.parse(argv), [url]);
    openBrowser(url, { BROWSER: join(dir, "no-such-browser") });
    openBrowser(url, { BROWSER: "none" });
  });
});
