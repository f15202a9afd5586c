/**
 * The entries a Worker or a page imports, bundled under the `workerd`, `worker` and `browser`
 * export conditions with every dependency inlined: no `node:` module, no createRequire and no
 * import left unresolved, so the code loads in workerd and browsers. The JSON Schema engine
 * there is cfworker's (ajv's code generation is refused in Workers). Needs `npm run build`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bundleForWeb, nodeOnlyTraces } from "../helpers/web-bundle.js";

const ENTRIES = [
  "mcpwire/server",
  "mcpwire/client",
  "mcpwire/transports/http",
  "mcpwire/auth",
  "mcpwire/jsonrpc",
  "mcpwire/protocol",
  "mcpwire/transports/memory",
  "mcpwire/extensions/skills",
];

describe("web builds (workerd, worker, browser conditions)", () => {
  for (const entry of ENTRIES) {
    it(`${entry} bundles without Node modules`, async () => {
      const { code, unresolved } = await bundleForWeb(`export * from ${JSON.stringify(entry)};\n`);
      assert.deepEqual(unresolved, [], "imports a bundler could not resolve");
      assert.deepEqual(nodeOnlyTraces(code), [], "Node-only modules in the web build");
      assert.doesNotMatch(code, /from "ajv|require\("ajv/, "ajv reached the web build");
    });
  }

  it("a server there validates with cfworker, and ajv says why it cannot run", async () => {
    const { code } = await bundleForWeb(
      'export { McpServer, ajvValidator } from "mcpwire/server";\n',
    );
    assert.match(code, /@cfworker\/json-schema|Unresolved \$ref/, "cfworker is bundled");
    assert.match(code, /ajvValidator needs code generation/);
  });
});
