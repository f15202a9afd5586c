/**
 * The official TypeScript client SDK (v2) against our example server, as a real subprocess over
 * stdio, in every protocol era the SDK speaks: modern 2026-07-28 (pinned, and found by its
 * `auto` probe) and legacy `initialize` at 2025-11-25 (its default), 2025-06-18, 2025-03-26 and
 * 2024-11-05 (selected with `supportedProtocolVersions`, whose first 2025-era entry is what the
 * SDK offers). The SDK validates every result against its own schemas, so a malformed answer
 * from our server fails here.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  Client,
  type ClientOptions,
  LOG_LEVEL_META_KEY,
  type LoggingMessageNotification,
  ResourceNotFoundError,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { until } from "../helpers/poll.js";
import { isAlive } from "../helpers/stdio-rpc.js";

const SERVER = fileURLToPath(new URL("../../examples/stdio-server.js", import.meta.url));
const SERVER_INFO = { name: "mcpwire-example-stdio", version: "1.0.0" };
const TOOL_NAMES = ["echo", "add", "slow_count", "noisy"];
const STEPS = 4;

interface EraCase {
  label: string;
  options: ClientOptions;
  era: "modern" | "legacy";
  version: string;
}

const ERAS: EraCase[] = [
  {
    label: "modern 2026-07-28, pinned",
    options: { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    era: "modern",
    version: "2026-07-28",
  },
  {
    label: "modern 2026-07-28, found by the auto probe",
    options: { versionNegotiation: { mode: "auto" } },
    era: "modern",
    version: "2026-07-28",
  },
  {
    label: "legacy 2025-11-25 (the SDK default)",
    options: {},
    era: "legacy",
    version: "2025-11-25",
  },
  ...["2025-06-18", "2025-03-26", "2024-11-05"].map(
    (version): EraCase => ({
      label: `legacy ${version}`,
      options: { supportedProtocolVersions: [version] },
      era: "legacy",
      version,
    }),
  ),
];

/**
 * Live child processes of this test process (Linux: from /proc, so the SDK's short-lived probe
 * sibling counts too). Elsewhere, only the pids we were told about.
 */
function liveChildren(known: number[]): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return known.filter(isAlive);
  }
  const children: number[] = [];
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields[0] is the state, fields[1] the parent pid; zombies are already gone.
      if (Number(fields[1]) === process.pid && fields[0] !== "Z") children.push(Number(entry));
    } catch {
      // The process exited while we looked.
    }
  }
  return children;
}

const UNKNOWN_PROGRESS = "Received a progress notification for an unknown token: ";

/**
 * A connected SDK client plus what it saw besides results: errors it reported, log
 * notifications, and the server's stderr.
 */
async function connect(options: ClientOptions) {
  const errors: Error[] = [];
  const logs: LoggingMessageNotification["params"][] = [];
  let stderr = "";
  const client = new Client({ name: "mcpwire-interop", version: "1.0.0" }, options);
  client.onerror = (error) => errors.push(error);
  client.setNotificationHandler("notifications/message", (notification) => {
    logs.push(notification.params);
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  await client.connect(transport);
  const pid = transport.pid;
  assert.ok(pid !== null, "the SDK spawned the server");
  return {
    client,
    pid,
    errors,
    logs,
    stderr: () => stderr,
    /**
     * The SDK dispatches notifications a microtask later than responses, so a progress
     * notification read in the same chunk as its response finds its handler already gone and
     * lands in onerror instead. Those are still proof the server sent them.
     */
    droppedProgress(): { progress: number; total?: number; progressToken: unknown }[] {
      return errors
        .filter((error) => error.message.startsWith(UNKNOWN_PROGRESS))
        .map((error) => JSON.parse(error.message.slice(UNKNOWN_PROGRESS.length)).params);
    },
    unexpectedErrors(): string[] {
      return errors
        .filter((error) => !error.message.startsWith(UNKNOWN_PROGRESS))
        .map((error) => error.message);
    },
  };
}

async function closeAndCheckReaped(client: Client, pid: number): Promise<void> {
  await client.close();
  await until(
    () => liveChildren([pid]).length === 0,
    `every server process to exit (left: ${liveChildren([pid]).join(", ")})`,
  );
  assert.equal(isAlive(pid), false);
}

describe("official client SDK against the example stdio server", () => {
  for (const era of ERAS) {
    it(`${era.label}: tools, progress, logs, resources, templates, prompts, completion`, async () => {
      const peer = await connect(era.options);
      const { client } = peer;
      try {
        assert.ok(liveChildren([peer.pid]).includes(peer.pid), "server is our child");
        assert.equal(client.getProtocolEra(), era.era);
        assert.equal(client.getNegotiatedProtocolVersion(), era.version);
        assert.deepEqual(client.getServerVersion(), SERVER_INFO);
        assert.match(client.getInstructions() ?? "", /slow_count/);
        const capabilities = client.getServerCapabilities();
        assert.ok(capabilities?.tools && capabilities.resources && capabilities.prompts);
        assert.ok(capabilities.completions);
        // A server that can emit notifications/message declares logging in either era.
        assert.ok(capabilities.logging, "servers that log advertise logging");
        if (era.era === "legacy") assert.equal(capabilities.resources.subscribe, true);

        // Tools: listed in registration order, with the add tool's output schema.
        const { tools } = await client.listTools();
        assert.deepEqual(
          tools.map((tool) => tool.name),
          TOOL_NAMES,
        );
        assert.deepEqual(tools[1]?.outputSchema, {
          type: "object",
          properties: { sum: { type: "number" } },
          required: ["sum"],
        });

        const echoed = await client.callTool({ name: "echo", arguments: { text: "hello" } });
        assert.deepEqual(echoed.content, [{ type: "text", text: "hello" }]);
        assert.ok(!echoed.isError);

        // The SDK checks structuredContent against the listed outputSchema itself.
        const added = await client.callTool({ name: "add", arguments: { a: 2, b: 3.5 } });
        assert.deepEqual(added.content, [{ type: "text", text: "5.5" }]);
        assert.deepEqual(added.structuredContent, { sum: 5.5 });

        const invalid = await client.callTool({ name: "add", arguments: { a: "two", b: 1 } });
        assert.equal(invalid.isError, true, "bad arguments are a tool error the model can see");

        // Progress and logs. Modern logging is per request (a _meta key); legacy logs by default.
        const progress: { progress: number; total?: number }[] = [];
        const counted = await client.callTool(
          {
            name: "slow_count",
            arguments: { n: STEPS },
            ...(era.era === "modern" ? { _meta: { [LOG_LEVEL_META_KEY]: "debug" } } : {}),
          },
          { onprogress: (update) => progress.push(update) },
        );
        assert.deepEqual(counted.content, [{ type: "text", text: `counted to ${STEPS}` }]);
        assert.ok(progress.length > 0, "progress reached the onprogress callback");
        await until(
          () => progress.length + peer.droppedProgress().length >= STEPS,
          "every progress notification",
        );
        const sent = [...progress, ...peer.droppedProgress()];
        assert.deepEqual(
          sent.map((update) => [update.progress, update.total]),
          Array.from({ length: STEPS }, (_, index) => [index + 1, STEPS]),
        );
        await until(() => peer.logs.length >= STEPS + 1, "every log notification");
        assert.deepEqual(peer.logs[0], {
          level: "info",
          logger: "slow_count",
          data: `counting to ${STEPS}`,
        });
        assert.deepEqual(
          peer.logs.slice(1).map((log) => [log.level, log.data]),
          Array.from({ length: STEPS }, (_, index) => ["debug", `step ${index + 1}`]),
        );

        // console.log in a handler goes to stderr and leaves the protocol stream intact.
        const noisy = await client.callTool({ name: "noisy", arguments: {} });
        assert.deepEqual(noisy.content, [{ type: "text", text: "made some noise on stderr" }]);
        await until(
          () => peer.stderr().includes("noisy: console.log from a tool handler"),
          "the console.log line on stderr",
        );

        // Resources, a template, and a miss.
        const { resources } = await client.listResources();
        assert.deepEqual(resources, [
          {
            uri: "example://readme",
            name: "readme",
            title: "About this server",
            mimeType: "text/markdown",
          },
        ]);
        const readme = await client.readResource({ uri: "example://readme" });
        assert.equal(readme.contents.length, 1);
        assert.equal(readme.contents[0]?.uri, "example://readme");
        assert.equal(readme.contents[0]?.mimeType, "text/markdown");
        assert.match(String((readme.contents[0] as { text?: string }).text), /^# mcpwire example/);

        const { resourceTemplates } = await client.listResourceTemplates();
        assert.deepEqual(
          resourceTemplates.map((template) => [template.name, template.uriTemplate]),
          [["color", "example://colors/{color}"]],
        );
        const blue = await client.readResource({ uri: "example://colors/blue" });
        assert.deepEqual(blue.contents, [
          { uri: "example://colors/blue", mimeType: "text/plain", text: "blue is a fine color" },
        ]);
        await assert.rejects(
          client.readResource({ uri: "example://nowhere" }),
          (error: unknown) => error instanceof ResourceNotFoundError,
        );

        // Prompts.
        const { prompts } = await client.listPrompts();
        assert.deepEqual(
          prompts.map((prompt) => [prompt.name, prompt.arguments]),
          [["greet", [{ name: "name", description: "Who to greet", required: true }]]],
        );
        const greeting = await client.getPrompt({ name: "greet", arguments: { name: "Grace" } });
        assert.deepEqual(greeting.messages, [
          { role: "user", content: { type: "text", text: "Please greet Grace warmly." } },
        ]);

        // Completion of a prompt argument and of a template variable.
        const names = await client.complete({
          ref: { type: "ref/prompt", name: "greet" },
          argument: { name: "name", value: "a" },
        });
        assert.deepEqual(names.completion.values, ["Ada", "Alan"]);
        assert.equal(names.completion.hasMore, false);
        const colors = await client.complete({
          ref: { type: "ref/resource", uri: "example://colors/{color}" },
          argument: { name: "color", value: "b" },
        });
        assert.deepEqual(colors.completion.values, ["blue", "black"]);

        assert.deepEqual(peer.unexpectedErrors(), []);
      } finally {
        await closeAndCheckReaped(client, peer.pid);
      }
    });
  }

  it("cancels a running tool when the caller aborts, and keeps serving", async () => {
    for (const era of [ERAS[0]!, ERAS[2]!]) {
      const peer = await connect(era.options);
      try {
        const controller = new AbortController();
        await assert.rejects(
          peer.client.callTool(
            { name: "slow_count", arguments: { n: 100 } },
            {
              signal: controller.signal,
              onprogress: (update) => {
                if (update.progress === 2) controller.abort(new Error("caller gave up"));
              },
            },
          ),
          /caller gave up/,
        );
        const echoed = await peer.client.callTool({ name: "echo", arguments: { text: "still" } });
        assert.deepEqual(echoed.content, [{ type: "text", text: "still" }], era.label);
      } finally {
        await closeAndCheckReaped(peer.client, peer.pid);
      }
    }
  });

  it("a client that offers only a version we do not speak gets our counter-offer", async () => {
    // The SDK still lists the pre-release 2024-10-07; we answer with our latest legacy version,
    // which this client does not accept, so connect fails cleanly and nothing is left running.
    const client = new Client(
      { name: "mcpwire-interop", version: "1.0.0" },
      { supportedProtocolVersions: ["2024-10-07"] },
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER],
      stderr: "ignore",
    });
    await assert.rejects(client.connect(transport), /not supported: 2025-11-25/);
    await client.close();
    await until(() => liveChildren([]).length === 0, "the server to exit");
  });
});
