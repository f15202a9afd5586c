/**
 * The everything example with `--validator cfworker` (no code generation, the Workers engine)
 * against the official suite's JSON Schema 2020-12 scenario, and a call whose arguments break the
 * 2020-12 tool's schema, answered in @cfworker/json-schema's words: proof the engine in use is
 * the one asked for. The ajv runs of the same scenarios are in `npm run conformance`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { McpClient } from "../../src/client/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { conformanceScenario } from "../helpers/conformance-run.js";
import { type ListeningChild, spawnListening, stopChild } from "../helpers/listening-child.js";

const SERVER = fileURLToPath(new URL("../../examples/everything-server.js", import.meta.url));

describe("everything server on the cfworker engine", () => {
  let server: ListeningChild;
  before(async () => {
    server = await spawnListening(process.execPath, [
      SERVER,
      ...["--http", "--port", "0", "--validator", "cfworker"],
    ]);
  });
  after(() => stopChild(server.child));

  it("passes the suite's json-schema-2020-12 scenario", async () => {
    const { checks, output } = await conformanceScenario(server.url, "json-schema-2020-12");
    assert.ok(checks.length > 0, `no checks ran:\n${output}`);
    const failed = checks.filter((check) => check.status !== "SUCCESS");
    assert.deepEqual(failed, [], output);
  });

  it("refuses arguments that break the 2020-12 schema, in cfworker's words", async () => {
    const client = new McpClient({ clientInfo: { name: "cfworker-test", version: "1.0.0" } });
    await client.connect(new HttpClientTransport(server.url));
    try {
      const missing = await client.callTool("json_schema_2020_12_tool", { name: "x" });
      assert.equal(missing.isError, true);
      const text = (missing.content[0] as { text: string }).text;
      // allOf/anyOf: a phone or an email is required; the engine names the first branch.
      assert.equal(
        text,
        'Invalid arguments for tool json_schema_2020_12_tool: arguments: Instance does not have required property "phone".',
      );
      const fine = await client.callTool("json_schema_2020_12_tool", {
        name: "x",
        email: "x@example.com",
      });
      assert.notEqual(fine.isError, true);
    } finally {
      await client.close();
    }
  });
});
