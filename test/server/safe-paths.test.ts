/**
 * resolveInside / safePathSegments (mcpwire/server): a file:// resource template variable arrives
 * percent-decoded, so `%2F` and `..` in a URI could walk a read handler out of its directory.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { after, before, describe, it } from "node:test";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { Session } from "../../src/protocol/session.js";
import { McpServer, resolveInside, safePathSegments } from "../../src/server/index.js";
import { tcpConnector } from "../helpers/connectors.js";

const refused = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof JsonRpcError);
  assert.equal(error.code, -32602);
  assert.match(error.message, pattern);
  return true;
};

describe("safePathSegments", () => {
  it("splits ordinary values, dropping empty and '.' segments", () => {
    assert.deepEqual(safePathSegments("a/b.txt"), ["a", "b.txt"]);
    assert.deepEqual(safePathSegments("a//./b"), ["a", "b"]);
    assert.deepEqual(safePathSegments(["a", "b/c"]), ["a", "b", "c"]);
    assert.deepEqual(safePathSegments("...hidden/..x"), ["...hidden", "..x"]);
    assert.deepEqual(safePathSegments("50%25 off.txt"), ["50%25 off.txt"]);
  });

  for (const [label, value, why] of [
    ["a '..' segment", "a/../../etc/passwd", /'\.\.' segment/],
    ["a lone '..'", "..", /'\.\.' segment/],
    ["'..' in an exploded list", ["a", ".."], /'\.\.' segment/],
    ["'..' still percent-encoded", "%2E%2E/secret", /'\.\.' segment/],
    ["'..' encoded twice", "%252e%252E", /'\.\.' segment/],
    ["an encoded slash left after decoding", "a%2Fb", /encoded path separator/],
    ["an encoded backslash", "a%5C..", /encoded path separator/],
    ["a backslash", "a\\..\\b", /backslash/],
    ["an absolute path", "/etc/passwd", /absolute/],
    ["a drive letter", "C:/Windows", /absolute/],
    ["a NUL byte", "a\0b", /NUL/],
  ] as const) {
    it(`refuses ${label}`, () => {
      assert.throws(() => safePathSegments(value), refused(why));
    });
  }
});

describe("resolveInside", () => {
  it("resolves under the root and refuses what leaves it", () => {
    const root = join(tmpdir(), "root");
    assert.equal(resolveInside(root, "a/b.txt"), join(root, "a", "b.txt"));
    assert.equal(resolveInside(`${root}${sep}`, ""), root);
    assert.throws(() => resolveInside(root, "../root-sibling/x"), refused(/'\.\.' segment/));
  });
});

describe("a file:// template read through resolveInside, on the wire", () => {
  let directory: string;
  let client: Session;
  let cleanup: () => Promise<void>;
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
  };

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), "mcpwire-paths-"));
    const docs = join(directory, "docs");
    await mkdir(join(docs, "sub"), { recursive: true });
    await writeFile(join(docs, "sub", "ok.txt"), "inside");
    await writeFile(join(directory, "secret.txt"), "outside");
    const server = new McpServer({
      serverInfo: { name: "files", version: "1" },
      onError: () => {},
    });
    server.resourceTemplate(
      { uriTemplate: "file:///docs/{path}", name: "docs" },
      async (uri, variables) => [
        { uri, text: await readFile(resolveInside(docs, variables.path!), "utf8") },
      ],
    );
    let transport: import("../../src/protocol/transport.js").Transport;
    ({ transport, cleanup } = await tcpConnector(server));
    client = new Session(transport);
    client.start();
  });
  after(async () => {
    await client.close();
    await cleanup();
    await rm(directory, { recursive: true, force: true });
  });

  const read = (uri: string) => client.request("resources/read", { uri, _meta: meta });

  it("reads a file below the root, its slash sent as %2F", async () => {
    const result = await read("file:///docs/sub%2Fok.txt");
    assert.equal((result.contents as { text: string }[])[0]!.text, "inside");
  });

  for (const uri of [
    "file:///docs/..%2Fsecret.txt",
    "file:///docs/sub%2F..%2F..%2Fsecret.txt",
    "file:///docs/%252E%252E%252Fsecret.txt",
    "file:///docs/%2Fetc%2Fpasswd",
  ]) {
    it(`refuses ${uri} with -32602`, async () => {
      await assert.rejects(read(uri), refused(/Refused resource path/));
    });
  }
});
