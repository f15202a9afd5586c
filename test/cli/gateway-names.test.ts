/** The aggregated endpoint's names: server-prefixed tools, and URIs that carry their server and read back. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  followsToolNameRules,
  namespacedName,
  namespacedUri,
  splitUri,
} from "../../src/cli/gateway/gateway-names.js";

describe("gateway names", () => {
  it("carries the server in hierarchical and opaque URIs, and reads it back", () => {
    const cases: [string, string][] = [
      ["test://static-text", "test://files/static-text"],
      ["ui://weather/app.html", "ui://files/weather/app.html"],
      ["file:///srv/data.txt", "file://files//srv/data.txt"],
      ["urn:isbn:0451450523", "urn:files:isbn:0451450523"],
      ["https://example.com/a?b=c#d", "https://files/example.com/a?b=c#d"],
    ];
    for (const [own, aggregated] of cases) {
      assert.equal(namespacedUri("files", own), aggregated);
      assert.deepEqual(splitUri(aggregated), { server: "files", uri: own });
    }
  });

  it("keeps odd server names apart by encoding them", () => {
    const uri = namespacedUri("a/b:c d", "test://x");
    assert.equal(uri, "test://a%2Fb%3Ac%20d/x");
    assert.deepEqual(splitUri(uri), { server: "a/b:c d", uri: "test://x" });
    assert.deepEqual(splitUri(namespacedUri("a:b", "urn:x")), { server: "a:b", uri: "urn:x" });
  });

  it("finds no server in what names none", () => {
    for (const uri of ["not a uri", "test://", "test:///x", "urn:", "test://%E0%A4%A/x"]) {
      assert.equal(splitUri(uri), undefined, uri);
    }
  });

  it("names tools <server>_<name> and says when that breaks the tool-name rules", () => {
    assert.equal(namespacedName("files", "read", "_"), "files_read");
    assert.ok(followsToolNameRules("files_read.v2-x"));
    assert.ok(!followsToolNameRules("my files_read"));
    assert.ok(!followsToolNameRules(`s_${"x".repeat(127)}`));
  });
});
