/**
 * What a registry shows of the package besides its code (issue 25.D12): keywords a person
 * searching for an MCP library would type. (`repository` and `homepage` wait for a public URL.)
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

const PACKAGE = new URL("../../../package.json", import.meta.url);
const manifest = JSON.parse(readFileSync(PACKAGE, "utf8")) as Record<string, unknown>;

describe("package.json for the registry", () => {
  it("has a description, a license and keywords that find it", () => {
    assert.equal(typeof manifest.description, "string");
    assert.equal(manifest.license, "MIT");
    const keywords = manifest.keywords as string[];
    assert.ok(Array.isArray(keywords));
    for (const wanted of [
      "mcp",
      "model-context-protocol",
      "json-rpc",
      "stdio",
      "streamable-http",
    ]) {
      assert.ok(keywords.includes(wanted), `keywords lack ${wanted}`);
    }
    assert.equal(new Set(keywords).size, keywords.length, "no keyword twice");
  });
});
