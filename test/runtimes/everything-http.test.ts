/**
 * The everything example served over HTTP by Bun and by Deno (real binaries from npm, each
 * running compiled code), called by our client from Node in both eras: modern 2026-07-28 and
 * legacy 2025-11-25 sessions. Each runtime serves it two ways: `serveHttp` (the example itself,
 * on the runtime's node:http emulation) and `createHttpHandler` on the runtime's own server
 * (Bun.serve, Deno.serve: test/fixtures/everything-native-server.ts). It covers what differs
 * between runtimes under the web-standard core: SSE replies (progress),
 * the server asking the client (a real request on a legacy session, an input_required round
 * trip on a modern one), compiled schema validation, the skills it serves from a folder (file
 * reads, YAML, hashing), and a clean exit on SIGTERM.
 * The official conformance suite runs against both runtimes in `npm run conformance`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { McpClient } from "../../src/client/index.js";
import { SkillsClient } from "../../src/extensions/skills/index.js";
import type { Era } from "../../src/protocol/versions.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type ListeningChild, spawnListening } from "../helpers/listening-child.js";
import { RUNTIMES } from "../helpers/runtimes.js";

/** How the server is mounted: the script the runtime runs, and its arguments. */
const MOUNTS = [
  {
    name: "serveHttp",
    script: fileURLToPath(new URL("../../examples/everything-server.js", import.meta.url)),
    args: ["--http", "--port", "0"],
  },
  {
    name: "createHttpHandler on its own server",
    script: fileURLToPath(new URL("../fixtures/everything-native-server.js", import.meta.url)),
    args: [],
  },
];

const ERAS: readonly { era: Era; version: string }[] = [
  { era: "modern", version: "2026-07-28" },
  { era: "legacy", version: "2025-11-25" },
];

function onlyText(result: { content?: unknown }): string {
  const content = result.content as { type: string; text?: string }[];
  assert.equal(content.length, 1);
  assert.equal(content[0]?.type, "text");
  return String(content[0]?.text);
}

/** Resolves with the exit code once the child is gone after SIGTERM. */
function terminate(server: ListeningChild): Promise<number | null> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  return exited;
}

for (const [runtime, mount] of RUNTIMES.flatMap((r) => MOUNTS.map((m) => [r, m] as const))) {
  describe(`the everything example on ${runtime.name}, ${mount.name}`, () => {
    let server: ListeningChild;
    before(async () => {
      server = await spawnListening(runtime.command, runtime.args(mount.script, mount.args));
    });
    after(async () => {
      // Whatever the tests did, the process must end; SIGKILL only if SIGTERM is not enough.
      const late = setTimeout(() => server.child.kill("SIGKILL"), 10_000);
      await terminate(server);
      clearTimeout(late);
    });

    for (const { era, version } of ERAS) {
      it(`answers our client in the ${era} era (${version})`, async () => {
        const progress: number[] = [];
        const asked: string[] = [];
        const client = new McpClient({
          clientInfo: { name: `runtime-${runtime.name}`, version: "1.0.0" },
          era,
          handlers: {
            sampling: (params) => {
              const messages = params.messages as { content: { text?: string } }[];
              asked.push(String(messages.at(-1)?.content.text));
              return {
                model: "runtime-model",
                role: "assistant",
                content: { type: "text", text: "Paris" },
              };
            },
          },
        });
        await client.connect(new HttpClientTransport(server.url));
        try {
          assert.equal(client.era, era);
          assert.equal(client.protocolVersion, version);
          assert.equal(client.serverInfo?.name, "mcpwire-everything-server");

          const tools = (await client.listAllTools()).map((tool) => tool.name);
          assert.ok(tools.includes("json_schema_2020_12_tool"), tools.join(", "));

          const simple = await client.callTool("test_simple_text");
          assert.match(onlyText(simple), /simple text/i);

          // Progress travels on an SSE reply before the result.
          const withProgress = await client.callTool(
            "test_tool_with_progress",
            {},
            { onProgress: (update) => progress.push(update.progress) },
          );
          assert.equal(withProgress.isError, undefined);
          assert.ok(progress.length > 0, "progress notifications arrived");

          // Legacy: a sampling/createMessage request to us; modern: an input_required round trip.
          const sampled = await client.callTool("test_sampling", { prompt: "Capital of France?" });
          assert.equal(onlyText(sampled), "LLM response: Paris");
          assert.deepEqual(asked, ["Capital of France?"]);

          // The 2020-12 schema (if/then/else, $ref to $defs) is compiled and enforced here.
          const valid = await client.callTool("json_schema_2020_12_tool", {
            name: "Ada",
            contactMethod: "phone",
            phone: "555",
          });
          assert.equal(valid.isError, undefined, onlyText(valid));
          const invalid = await client.callTool("json_schema_2020_12_tool", {
            name: "Ada",
            contactMethod: "phone",
            email: "ada@example.com",
          });
          assert.equal(invalid.isError, true);
          assert.match(onlyText(invalid), /^Invalid arguments for tool json_schema_2020_12_tool/);

          const resource = await client.readResource("test://static-text");
          assert.equal(resource.contents.length, 1);
          const prompt = await client.getPrompt("test_simple_prompt");
          assert.ok(prompt.messages.length > 0);

          // The Skills extension: the folder scanned, frontmatter parsed, files hashed here.
          const skills = new SkillsClient(client);
          const { skills: listed } = await skills.list();
          assert.deepEqual(
            listed.map((skill) => skill.frontmatter.name),
            ["refunds", "code-review"],
          );
          const files = await skills.fetchAll(listed[1]!);
          assert.equal(files.length, 2);
        } finally {
          await client.close();
        }
      });
    }

    it("exits 0 on SIGTERM", async () => {
      assert.equal(await terminate(server), 0, server.stderr());
    });
  });
}
