/**
 * The Skills extension between a real McpServer and McpClient (in-memory transport), in both
 * eras: what the server declares and answers, and what SkillsClient verifies, with the skills
 * folder changed under the server to make the content disagree with the entry.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { McpClient } from "../../../src/client/index.js";
import {
  type Skill,
  SkillsClient,
  type SkillsServer,
  SkillVerificationError,
  skillsFromDirectory,
} from "../../../src/extensions/skills/index.js";
import { JsonRpcError } from "../../../src/jsonrpc/errors.js";
import type { Era } from "../../../src/protocol/versions.js";
import { McpServer } from "../../../src/server/index.js";
import { createMemoryPair } from "../../../src/transports/memory.js";

const made: string[] = [];
const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers) await close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const skillMd = (name: string, description = `The ${name} skill`) =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  owner: team\n---\n\n# ${name}\n`;

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

async function setUp(era: Era, files: Record<string, string>, pageSize?: number) {
  const root = mkdtempSync(join(tmpdir(), "mcpwire-skills-ext-"));
  made.push(root);
  write(root, files);
  const server = new McpServer({
    serverInfo: { name: "skills-test", version: "1" },
    ...(pageSize ? { pageSize } : {}),
  });
  const skills: SkillsServer = await skillsFromDirectory(root);
  server.install(skills);
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const client = new McpClient({ clientInfo: { name: "c", version: "1" }, era });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { root, server, skills, client, host: new SkillsClient(client) };
}

const FILES = {
  "code-review/SKILL.md": skillMd("code-review"),
  "code-review/references/checklist.md": "- tests?\n",
  "acme/refunds/SKILL.md": skillMd("refunds"),
};

for (const era of ["modern", "legacy"] as const) {
  describe(`the Skills extension (${era} era)`, () => {
    it("is declared with directoryRead, beside resources", async () => {
      const { client, host } = await setUp(era, FILES);
      assert.deepEqual(host.capability, { directoryRead: true });
      assert.ok(client.serverCapabilities?.resources);
    });

    it("lists every skill across pages and gets each by URI", async () => {
      const { host } = await setUp(era, FILES, 1);
      const { skills, problems } = await host.list();
      assert.deepEqual(problems, []);
      assert.deepEqual(
        skills.map((skill) => skill.uri),
        ["skill://acme/refunds/SKILL.md", "skill://code-review/SKILL.md"],
      );
      const one = await host.get("skill://code-review/SKILL.md");
      assert.deepEqual(one, skills[1]);
      await assert.rejects(host.get("skill://nope/SKILL.md"), (error: unknown) => {
        assert.ok(error instanceof JsonRpcError);
        assert.equal(error.code, -32602);
        assert.match(error.message, /No skill is served at skill:\/\/nope\/SKILL.md/);
        return true;
      });
    });

    it("carries ttlMs and cacheScope on skills/list and skills/get in the modern era only", async () => {
      const { client } = await setUp(era, FILES);
      const list = await client.request("skills/list", {});
      const get = await client.request("skills/get", { uri: "skill://acme/refunds/SKILL.md" });
      for (const result of [list, get]) {
        if (era === "modern") {
          assert.equal(result.ttlMs, 0);
          assert.equal(result.cacheScope, "public");
        } else {
          assert.equal(result.ttlMs, undefined);
        }
      }
    });

    it("serves SKILL.md in resources/list and every file through resources/read", async () => {
      const { client, host } = await setUp(era, FILES);
      const resources = await client.listAllResources();
      assert.deepEqual(
        resources.map((resource) => [resource.uri, resource.name, resource.mimeType]),
        [
          ["skill://acme/refunds/SKILL.md", "refunds", "text/markdown"],
          ["skill://code-review/SKILL.md", "code-review", "text/markdown"],
        ],
      );
      const skill = await host.get("skill://code-review/SKILL.md");
      const files = await host.fetchAll(skill);
      assert.deepEqual(
        files.map((file) => [file.path.join("/"), new TextDecoder().decode(file.bytes)]),
        [
          ["SKILL.md", skillMd("code-review")],
          ["references/checklist.md", "- tests?\n"],
        ],
      );
      await assert.rejects(
        client.readResource("skill://code-review/missing.md"),
        (error: unknown) => {
          assert.ok(error instanceof JsonRpcError);
          assert.equal(error.code, era === "modern" ? -32602 : -32002);
          return true;
        },
      );
    });

    it("reads directories", async () => {
      const { host } = await setUp(era, FILES);
      const children = await host.readDirectory("skill://code-review");
      assert.deepEqual(
        children.map((child) => [child.name, child.mimeType]),
        [
          ["SKILL.md", "text/markdown"],
          ["references", "inode/directory"],
        ],
      );
      await assert.rejects(host.readDirectory("skill://code-review/SKILL.md"), /not a directory/);
    });
  });
}

describe("SkillsClient verifies what it reads against the entry", () => {
  it("refuses content whose size or digest changed since the listing", async () => {
    const { root, skills, host } = await setUp("modern", FILES);
    const skill = await host.get("skill://code-review/SKILL.md");
    writeFileSync(join(root, "code-review/references/checklist.md"), "- Tests?\n");
    await assert.rejects(
      host.readFile(skill, "skill://code-review/references/checklist.md"),
      (error: unknown) => {
        assert.ok(error instanceof SkillVerificationError);
        assert.match(error.message, /does not match the entry's digest/);
        return true;
      },
    );
    writeFileSync(join(root, "code-review/references/checklist.md"), "- tests? more\n");
    await assert.rejects(
      host.readFile(skill, "skill://code-review/references/checklist.md"),
      /is 14 bytes, the entry says 9/,
    );
    // After a rescan, the fresh entry (skills/get) agrees with the content again.
    await skills.reload();
    const fresh = await host.get("skill://code-review/SKILL.md");
    const bytes = await host.readFile(fresh, "skill://code-review/references/checklist.md");
    assert.equal(new TextDecoder().decode(bytes), "- tests? more\n");
  });

  it("refuses a file the entry does not list, before asking the server", async () => {
    const { host } = await setUp("modern", FILES);
    const skill = await host.get("skill://acme/refunds/SKILL.md");
    await assert.rejects(
      host.readFile(skill, "skill://code-review/SKILL.md"),
      /is not one of the files the entry of skill:\/\/acme\/refunds\/SKILL.md lists/,
    );
  });

  it("refuses a SKILL.md whose frontmatter is not the entry's, field by field", async () => {
    const { host } = await setUp("modern", FILES);
    const skill = await host.get("skill://acme/refunds/SKILL.md");
    const loaded = await host.load(skill);
    assert.equal(loaded.body, "\n# refunds\n");
    const altered: Skill = {
      ...skill,
      frontmatter: { ...skill.frontmatter, metadata: { owner: "someone else" } },
    };
    await assert.rejects(
      host.load(altered),
      /the frontmatter differs from the entry's in metadata/,
    );
  });

  it("sees new skills after reload(), and the resource list follows", async () => {
    const { root, skills, client, host } = await setUp("modern", FILES);
    write(root, { "late/SKILL.md": skillMd("late") });
    assert.equal((await host.list()).skills.length, 2);
    await skills.reload();
    assert.equal((await host.list()).skills.length, 3);
    const uris = (await client.listAllResources()).map((resource) => resource.uri);
    assert.ok(uris.includes("skill://late/SKILL.md"));
    rmSync(join(root, "late"), { recursive: true });
    await skills.reload();
    assert.ok(!(await client.listAllResources()).some((r) => r.uri === "skill://late/SKILL.md"));
  });
});
