/**
 * The OAuth client's DPoP (RFC 9449) and JWT bearer grant (RFC 7523) against a real token
 * endpoint (test/auth/jwt-issuer.ts) and a protected mcpwire server that verifies DPoP proofs
 * (protectResource with dpop): the token request carries a proof, the nonce the authorization
 * server insists on is used on the one retry (and the fresh one it hands out with a token is used
 * in the next token request), every MCP request carries the DPoP scheme and a
 * proof the server accepts (it refuses bearer tokens), a token reloaded from the store keeps its
 * key, `dpop: false` keeps to bearer tokens, and a workload's assertion is read from its file.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import { generateKeyPair, SignJWT } from "jose";
import {
  assertionFromFile,
  InMemoryTokenStore,
  OAuthClient,
  type OAuthClientOptions,
} from "../../src/auth/index.js";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/index.js";
import { type JwtIssuer, startJwtIssuer } from "./jwt-issuer.js";
import { type Protected, startProtected } from "./resource-server-fixtures.js";
import { assertTokenRefusal, connectFailure } from "./token-refusal.js";

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

let as: JwtIssuer | undefined;
let rs: Protected | undefined;
afterEach(async () => {
  await rs?.close();
  await as?.close();
  rs = undefined;
  as = undefined;
});

async function start(options: Parameters<typeof startJwtIssuer>[0], dpopRequired: boolean) {
  as = await startJwtIssuer(options);
  as.clients.set("robot", { secret: "s3cret", scopes: ["mcp"] });
  rs = await startProtected({
    issuer: as.issuer,
    requiredScopes: ["mcp"],
    dpop: { required: dpopRequired },
  });
  return { as, rs };
}

const robot = (extra: Partial<OAuthClientOptions> = {}): OAuthClientOptions => ({
  grant: "client_credentials",
  clientId: "robot",
  clientSecret: "s3cret",
  clientIssuer: (as as JwtIssuer).issuer,
  ...extra,
});

/** Connects with `auth`, calls whoami twice, and returns what the server saw. */
async function whoamiTwice(
  url: string,
  auth: OAuthClient,
  era?: "legacy",
  onWarning?: (message: string) => void,
) {
  const client = new McpClient({ clientInfo: { name: "dpop", version: "1.0.0" }, era });
  try {
    await client.connect(
      new HttpClientTransport(url, {
        auth,
        flavourCache: new Map(),
        ...(onWarning ? { onWarning } : {}),
      }),
    );
    const first = JSON.parse(textOf(await client.callTool("whoami", {})));
    const second = JSON.parse(textOf(await client.callTool("whoami", {})));
    return [first, second];
  } finally {
    await client.close();
  }
}

describe("DPoP-bound tokens", () => {
  it("are asked for with a proof when the AS offers DPoP and the server names it, and every request carries a fresh proof", async () => {
    const { as, rs } = await start({ dpop: { algorithms: ["ES256"] } }, true);
    const [me] = await whoamiTwice(rs.url, new OAuthClient(robot()));
    assert.equal(me.subject, "robot");
    assert.deepEqual(
      as.tokenRequests.map((r) => r.dpop),
      [true],
    );
    // The server refuses bearer tokens (required), checks each proof's jti against replays,
    // and saw the calls through: the proofs were fresh and bound to the token's key.
    assert.equal(rs.seen.length, 2);
  });

  it("carries proofs on the legacy era's requests too (POSTs and the GET stream)", async () => {
    const { as, rs } = await start({ dpop: { algorithms: ["ES256"] } }, true);
    const warnings: string[] = [];
    const [me] = await whoamiTwice(rs.url, new OAuthClient(robot()), "legacy", (message) =>
      warnings.push(message),
    );
    assert.equal(me.subject, "robot");
    // The server requires DPoP: a GET stream without a proof would be refused, with a warning.
    assert.deepEqual(warnings, []);
    assert.equal(rs.seen.length, 2);
    assert.equal(as.tokenRequests.length, 1);
  });

  it("retries the token request once with the nonce the AS insists on", async () => {
    const { as, rs } = await start({ dpop: { algorithms: ["ES256"], nonce: "n-42" } }, true);
    const [me] = await whoamiTwice(rs.url, new OAuthClient(robot()));
    assert.equal(me.subject, "robot");
    assert.equal(as.tokenRequests.length, 2);
  });

  it("uses the fresh nonce the AS hands out with a token in its next token request (no retry)", async () => {
    const { as, rs } = await start(
      { dpop: { algorithms: ["ES256"], nonce: "n-42", rotateNonce: true } },
      true,
    );
    const auth = new OAuthClient(robot());
    await whoamiTwice(rs.url, auth);
    // Forgotten tokens, same client and key: the next grant's proof must carry fresh-1.
    await auth.logout();
    const [me] = await whoamiTwice(rs.url, auth);
    assert.equal(me.subject, "robot");
    assert.deepEqual(
      as.tokenRequests.map((r) => r.dpopNonce),
      [undefined, "n-42", "fresh-1"],
    );
  });

  it("keeps its key in the store: another client on the same store uses the token without asking again", async () => {
    const { as, rs } = await start({ dpop: { algorithms: ["ES256"] } }, true);
    const store = new InMemoryTokenStore();
    await whoamiTwice(rs.url, new OAuthClient(robot({ store })));
    const saved = await store.getTokens(rs.url);
    assert.equal(saved?.tokenType, "dpop");
    assert.equal(saved?.dpopKey?.alg, "ES256");
    const [me] = await whoamiTwice(rs.url, new OAuthClient(robot({ store })));
    assert.equal(me.subject, "robot");
    assert.equal(as.tokenRequests.length, 1);
  });

  it("drops a stored DPoP token whose key is unreadable and gets a new one", async () => {
    const { as, rs } = await start({ dpop: { algorithms: ["ES256"] } }, true);
    const store = new InMemoryTokenStore();
    await whoamiTwice(rs.url, new OAuthClient(robot({ store })));
    const saved = await store.getTokens(rs.url);
    await store.setTokens(rs.url, {
      ...(saved as NonNullable<typeof saved>),
      dpopKey: { alg: "ES256", jwk: { kty: "EC", crv: "P-256", x: "broken" } },
    });
    const [me] = await whoamiTwice(rs.url, new OAuthClient(robot({ store })));
    assert.equal(me.subject, "robot");
    assert.equal(as.tokenRequests.length, 2);
  });

  it("picks an algorithm the AS lists, and refuses to start DPoP with one it cannot sign", async () => {
    const { as, rs } = await start({ dpop: { algorithms: ["PS256"] } }, true);
    const store = new InMemoryTokenStore();
    await whoamiTwice(rs.url, new OAuthClient(robot({ store })));
    assert.equal((await store.getTokens(rs.url))?.dpopKey?.alg, "PS256");
    await rs.close();
    await as.close();
    const other = await start({ dpop: { algorithms: ["HS256"] } }, true);
    // No usable algorithm: a bearer token, which this server refuses.
    const client = new McpClient({ clientInfo: { name: "dpop", version: "1.0.0" } });
    await assert.rejects(
      client.connect(
        new HttpClientTransport(other.rs.url, {
          auth: new OAuthClient(robot()),
          flavourCache: new Map(),
        }),
      ),
    );
    await client.close();
    assert.deepEqual(
      other.as.tokenRequests.map((r) => r.dpop),
      [false],
    );
  });

  it("stay off with dpop: false (bearer tokens where the server also takes them)", async () => {
    const { as, rs } = await start({ dpop: { algorithms: ["ES256"] } }, false);
    const store = new InMemoryTokenStore();
    const [me] = await whoamiTwice(rs.url, new OAuthClient(robot({ store, dpop: false })));
    assert.equal(me.subject, "robot");
    assert.deepEqual(
      as.tokenRequests.map((r) => r.dpop),
      [false],
    );
    assert.equal((await store.getTokens(rs.url))?.tokenType, "bearer");
  });
});

describe("the JWT bearer grant (workload identity)", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcpwire-wif-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("presents the assertion read from the workload's file, afresh for each grant", async () => {
    const { as, rs } = await start({}, false);
    const workload = await generateKeyPair("ES256");
    as.assertionKeys.push(workload.publicKey);
    const assertion = (sub: string) =>
      new SignJWT({ sub })
        .setProtectedHeader({ alg: "ES256" })
        .setAudience(as.issuer)
        .setIssuer("https://workload.example")
        .setExpirationTime("5m")
        .sign(workload.privateKey);
    const file = join(dir, "token");
    await writeFile(file, `${await assertion("workload-1")}\n`);
    const auth = new OAuthClient({
      grant: "jwt_bearer",
      clientId: "workload",
      clientIssuer: as.issuer,
      assertion: assertionFromFile(file),
    });
    const [me] = await whoamiTwice(rs.url, auth);
    assert.equal(me.subject, "workload-1");
    const written = await assertion("workload-2");
    await writeFile(file, written);
    await auth.logout();
    const [again] = await whoamiTwice(rs.url, auth);
    assert.equal(again.subject, "workload-2");
    assert.equal(as.tokenRequests.at(-1)?.assertion, written);
    assert.ok(as.tokenRequests.every((r) => r.grantType?.endsWith(":jwt-bearer")));
  });

  it("reports an assertion file it cannot read as a token step failure", async () => {
    const { as, rs } = await start({}, false);
    const auth = new OAuthClient({
      grant: "jwt_bearer",
      clientId: "w",
      clientIssuer: as.issuer,
      assertion: assertionFromFile(join(dir, "missing")),
    });
    const error = await connectFailure(rs.url, auth);
    assert.equal(error.step, "token");
    assert.match(error.message, /ENOENT/);
    assert.equal(as.tokenRequests.length, 0);
  });

  it("reports a refused assertion as a token step failure, without retrying", async () => {
    const { as, rs } = await start({}, false);
    const stranger = await generateKeyPair("ES256");
    const forged = await new SignJWT({ sub: "intruder" })
      .setProtectedHeader({ alg: "ES256" })
      .setAudience(as.issuer)
      .setExpirationTime("5m")
      .sign(stranger.privateKey);
    const client = new McpClient({ clientInfo: { name: "wif", version: "1.0.0" } });
    const failure = await client
      .connect(
        new HttpClientTransport(rs.url, {
          auth: new OAuthClient({
            grant: "jwt_bearer",
            clientId: "w",
            clientIssuer: as.issuer,
            assertion: forged,
          }),
          flavourCache: new Map(),
        }),
      )
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    await client.close();
    assertTokenRefusal(failure, forged);
    assert.equal(as.tokenRequests.length, 1);
  });
});
