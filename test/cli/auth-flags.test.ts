/**
 * The authorization options every HTTP verb takes, against the everything example protected by
 * a local JWT issuer: a 401 without configured auth is one message naming the issuer and the
 * command to run; the client credentials grant gets in from the flags alone (secret in argv or
 * in MCPWIRE_CLIENT_SECRET); a bearer token from --bearer, --bearer-file or MCPWIRE_BEARER; the
 * reverse gateway fronts the protected server with the same options; and no secret or token
 * shows in --verbose output, errors or a tap recording.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ProtectedEverything, startProtectedEverything } from "./protected-everything.js";
import { CLI, runCli } from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

const SECRET = "s3cret-client-value";

describe("CLI authorization options", () => {
  let fixture: ProtectedEverything;
  let env: Record<string, string | undefined>;
  before(async () => {
    fixture = await startProtectedEverything();
    fixture.as.clients.set("cli-client", { secret: SECRET, scopes: ["mcp:read"] });
    // A store of our own; nothing from the environment the tests run in.
    env = {
      MCPWIRE_HOME: fixture.home,
      MCPWIRE_BEARER: undefined,
      MCPWIRE_CLIENT_SECRET: undefined,
    };
  });
  after(() => fixture.close());

  const call = (extra: string[], extraEnv: Record<string, string | undefined> = {}) =>
    runCli(["call", fixture.url, "test_simple_text", "{}", ...extra], {
      env: { ...env, ...extraEnv },
    });

  it("explains a 401 without configured auth: the issuer and the command to run", async () => {
    const run = await call([]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`requires authorization from ${fixture.as.issuer}`));
    assert.ok(run.stderr.includes(`run: mcpwire auth login ${fixture.url}`), run.stderr);
    assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
    assert.equal(run.stdout, "");
  });

  it("gets in with the client credentials grant from the flags alone", async () => {
    const grant = ["--client-id", "cli-client", "--grant", "client_credentials"];
    const inArgv = await call([...grant, "--client-secret", SECRET, "--scope", "mcp:read"]);
    assert.equal(inArgv.code, 0, inArgv.stderr);
    assert.match(inArgv.stdout, /simple text response/);
    const fromEnv = await call(grant, { MCPWIRE_CLIENT_SECRET: SECRET });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    assert.match(fromEnv.stdout, /simple text response/);
  });

  it("reports a refused client in one line, without the secret", async () => {
    const run = await call(["--client-id", "cli-client", "--grant", "client_credentials"], {
      MCPWIRE_CLIENT_SECRET: "wrong-secret-value",
    });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^mcpwire: authorization failed \(token\):.*invalid_client: the client id or its credentials are not accepted\nhint: check --client-id and its secret[^\n]*\n$/,
    );
    assert.ok(!run.stderr.includes("wrong-secret-value"));
  });

  it("sends a bearer token from --bearer, --bearer-file or MCPWIRE_BEARER", async () => {
    const token = await fixture.as.mint(fixture.url);
    const file = join(fixture.home, "bearer.txt");
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    for (const [extra, extraEnv] of [
      [["--bearer", token], {}],
      [["--bearer-file", file], {}],
      [[], { MCPWIRE_BEARER: token }],
    ] as const) {
      const run = await call([...extra], extraEnv);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /simple text response/);
    }
    const refused = await call(["--bearer", "not-a-jwt"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /401/);
  });

  it("keeps tokens and secrets out of --verbose output", async () => {
    const before = fixture.as.issued.length;
    const run = await call(
      ["--verbose", "--client-id", "cli-client", "--grant", "client_credentials"],
      { MCPWIRE_CLIENT_SECRET: SECRET },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /tools\/call/, "the wire is shown");
    const issued = fixture.as.issued.slice(before);
    assert.equal(issued.length, 1);
    for (const secret of [SECRET, issued[0]!]) {
      assert.ok(!run.stderr.includes(secret) && !run.stdout.includes(secret));
    }
    const token = await fixture.as.mint(fixture.url);
    const bearer = await call(["--verbose", "--bearer", token]);
    assert.equal(bearer.code, 0, bearer.stderr);
    assert.ok(!bearer.stderr.includes(token) && !bearer.stdout.includes(token));
  });

  it("fronts the protected server with gateway --stdio, and a tap of it records no secret", async () => {
    const recording = join(fixture.home, "tap.ndjson");
    const before = fixture.as.issued.length;
    const run = await runCli(
      [
        "call",
        "test_simple_text",
        "{}",
        // A stdio server gets an allowlisted environment: these two are passed on by name.
        "--env",
        "MCPWIRE_CLIENT_SECRET",
        "--env",
        "MCPWIRE_HOME",
        "--",
        process.execPath,
        CLI,
        "tap",
        "--out",
        recording,
        "--",
        process.execPath,
        CLI,
        "gateway",
        "--stdio",
        fixture.url,
        "--client-id",
        "cli-client",
        "--grant",
        "client_credentials",
      ],
      { env: { ...env, MCPWIRE_CLIENT_SECRET: SECRET } },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /simple text response/);
    const recorded = await readFile(recording, "utf8");
    assert.match(recorded, /tools\/call/);
    const issued = fixture.as.issued.slice(before);
    assert.ok(issued.length >= 1);
    for (const secret of [SECRET, ...issued]) assert.ok(!recorded.includes(secret));
  });

  it("has gateway --stdio say what a protected upstream asks for", async () => {
    const run = await runCli(
      [
        "call",
        "test_simple_text",
        "{}",
        "--env",
        "MCPWIRE_HOME",
        "--",
        process.execPath,
        CLI,
      ].concat(["gateway", "--stdio", fixture.url]),
      { env },
    );
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`requires authorization from ${fixture.as.issuer}`));
    assert.ok(run.stderr.includes(`run: mcpwire auth login ${fixture.url}`), run.stderr);
  });

  it("refuses options that cannot work together as usage errors", async () => {
    const cases: [string[], RegExp][] = [
      [["--grant", "password"], /--grant takes client_credentials/],
      [["--grant", "client_credentials"], /needs --client-id/],
      [["--bearer", "x", "--client-id", "y"], /exclude each other/],
      [["--bearer", "x", "--bearer-file", "y"], /give the bearer token once/],
    ];
    // Refused before anything is read or reached: in process, through run().
    for (const [extra, message] of cases) {
      const run = await runInProcess(["call", fixture.url, "test_simple_text", "{}", ...extra]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    }
    const stdio = await runInProcess([
      "call",
      "--bearer",
      "x",
      "t",
      "--",
      process.execPath,
      "-e",
      "",
    ]);
    assert.equal(stdio.code, 2);
    assert.match(stdio.stderr, /for an http\(s\) server/);
  });
});
