/**
 * The official TypeScript client SDK (v2) against our conformance everything-server, spawned as
 * a real subprocess, over stdio and over Streamable HTTP, in both eras: modern 2026-07-28
 * (pinned) and legacy 2025-11-25 (the SDK default). The SDK validates every result against its
 * own schemas, so a malformed answer from our server fails here.
 *
 * Input from the client is asked for the same way by the server's handlers in both eras; on a
 * legacy connection it becomes a real sampling/elicitation request, on a modern one an
 * `input_required` result that the SDK fulfils through the same handlers and retries. So every
 * combination runs test_sampling, test_elicitation and test_input_required_result_elicitation.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { spawnListening } from "../helpers/listening-child.js";
import { until } from "../helpers/poll.js";
import { isAlive } from "../helpers/stdio-rpc.js";

const SERVER = fileURLToPath(new URL("../../examples/everything-server.js", import.meta.url));
const SERVER_INFO = { name: "mcpwire-everything-server", version: "1.0.0" };
const UNKNOWN_PROGRESS = "Received a progress notification for an unknown token: ";

const ERAS = [
  {
    era: "modern",
    version: "2026-07-28",
    options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } as ClientOptions,
  },
  { era: "legacy", version: "2025-11-25", options: {} as ClientOptions },
] as const;

/** Live (non-zombie) children of this test process, read from /proc; elsewhere the known pids. */
function liveChildren(known: number[]): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return known.filter(isAlive);
  }
  return entries.map(Number).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return Number(parent) === process.pid && state !== "Z";
    } catch {
      return false; // exited while we looked
    }
  });
}

/** Spawns the server with `--http --port 0` and waits for its "listening on <url>" line. */
async function startHttpServer(): Promise<{ child: ChildProcess; url: string }> {
  return spawnListening(process.execPath, [SERVER, "--http", "--port", "0"]);
}

/**
 * Stops the HTTP server the way an operator would and returns its exit code. A server that
 * ignores SIGTERM is killed, so the failure is reported instead of hanging the test file.
 */
async function stopHttpServer(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const tooSlow = new Promise<"too slow">((resolve) => {
    timer = setTimeout(() => resolve("too slow"), 10_000);
  });
  const outcome = await Promise.race([exited, tooSlow]);
  clearTimeout(timer);
  if (outcome !== "too slow") return outcome;
  child.kill("SIGKILL");
  await exited;
  throw new Error("the HTTP server did not exit within 10 s of SIGTERM");
}

/**
 * A connected SDK client that answers sampling and elicitation, plus what it reported besides
 * results. `close()` ends the client and the server and checks that no child process is left.
 */
async function connect(transportKind: "stdio" | "http", options: ClientOptions) {
  const errors: Error[] = [];
  const client = new Client(
    { name: "mcpwire-everything-interop", version: "1.0.0" },
    { ...options, capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.onerror = (error) => errors.push(error);
  const asked: string[] = [];
  client.setRequestHandler("sampling/createMessage", async (request) => {
    const content = request.params.messages.at(-1)?.content;
    asked.push(`sampling: ${content && "text" in content ? content.text : "?"}`);
    return {
      model: "interop-model",
      role: "assistant",
      content: { type: "text", text: "Paris" },
    };
  });
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(`elicitation: ${request.params.message}`);
    const properties = Object.keys(
      ("requestedSchema" in request.params && request.params.requestedSchema?.properties) || {},
    );
    // Fill exactly the fields the form asks for, so one handler serves every form.
    const answers: Record<string, string> = {
      name: "Ada",
      username: "ada",
      email: "ada@example.com",
    };
    return {
      action: "accept",
      content: Object.fromEntries(properties.map((key) => [key, answers[key] ?? "?"])),
    };
  });

  let transport: Transport;
  let httpServer: ChildProcess | undefined;
  let stderr = "";
  if (transportKind === "stdio") {
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--stdio"],
      stderr: "pipe",
    });
    stdio.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    transport = stdio;
    await client.connect(transport);
  } else {
    const started = await startHttpServer();
    httpServer = started.child;
    httpServer.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    transport = new StreamableHTTPClientTransport(new URL(started.url));
    try {
      await client.connect(transport);
    } catch (error) {
      await stopHttpServer(httpServer);
      throw error;
    }
  }
  // Tap what arrives after the SDK's own handler is installed: server-to-client requests, and
  // the result types, to see which mechanism carried the client-input calls.
  const wire: string[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ("method" in message && "id" in message) wire.push(`request ${message.method}`);
    else if ("result" in message && message.result.resultType === "input_required") {
      wire.push("input_required");
    }
    deliver?.(message, extra);
  };
  const pid = transport instanceof StdioClientTransport ? transport.pid : httpServer?.pid;
  assert.ok(typeof pid === "number", "a server process is running");
  assert.ok(liveChildren([pid]).includes(pid), "the server is our child");

  return {
    client,
    transport,
    asked,
    wire,
    stderr: () => stderr,
    /**
     * The SDK dispatches notifications a microtask later than responses, so a progress
     * notification that arrives together with its result can find its handler gone and land in
     * onerror instead. Those are still proof that the server sent it.
     */
    droppedProgress(): number[] {
      return errors
        .filter((error) => error.message.startsWith(UNKNOWN_PROGRESS))
        .map((error) => JSON.parse(error.message.slice(UNKNOWN_PROGRESS.length)).params.progress);
    },
    unexpectedErrors(): string[] {
      return errors
        .filter((error) => !error.message.startsWith(UNKNOWN_PROGRESS))
        .map((error) => error.message);
    },
    async close(): Promise<void> {
      await client.close();
      if (httpServer) {
        assert.equal(await stopHttpServer(httpServer), 0, `graceful HTTP shutdown; ${stderr}`);
      }
      await until(
        () => liveChildren([pid]).length === 0,
        `every server process to exit (left: ${liveChildren([pid]).join(", ")})`,
      );
      assert.equal(isAlive(pid), false);
    },
  };
}

function text(result: { content?: unknown }): string {
  const content = result.content as { type: string; text?: string }[];
  assert.equal(content.length, 1);
  assert.equal(content[0]?.type, "text");
  return String(content[0]?.text);
}

describe("official client SDK against examples/everything-server", () => {
  for (const transportKind of ["stdio", "http"] as const) {
    for (const era of ERAS) {
      it(`${transportKind}, ${era.era} ${era.version}`, async () => {
        const peer = await connect(transportKind, era.options);
        const { client } = peer;
        try {
          assert.equal(client.getProtocolEra(), era.era);
          assert.equal(client.getNegotiatedProtocolVersion(), era.version);
          assert.deepEqual(client.getServerVersion(), SERVER_INFO);
          const capabilities = client.getServerCapabilities();
          assert.ok(capabilities?.tools && capabilities.resources && capabilities.prompts);
          assert.ok(capabilities.completions);
          if (transportKind === "http" && era.era === "legacy") {
            assert.match(String((peer.transport as StreamableHTTPClientTransport).sessionId), /./);
          }

          const { tools } = await client.listTools();
          const names = tools.map((tool) => tool.name);
          for (const name of [
            "test_simple_text",
            "test_tool_with_progress",
            "test_sampling",
            "test_elicitation",
            "test_input_required_result_elicitation",
            "json_schema_2020_12_tool",
          ]) {
            assert.ok(names.includes(name), `${name} is listed`);
          }

          const simple = await client.callTool({ name: "test_simple_text", arguments: {} });
          assert.equal(text(simple), "This is a simple text response for testing.");
          assert.ok(!simple.isError);

          const progress: number[] = [];
          const progressed = await client.callTool(
            { name: "test_tool_with_progress", arguments: {} },
            { onprogress: (update) => progress.push(update.progress) },
          );
          assert.equal(text(progressed), "Progress test completed");
          assert.ok(progress.length > 0, "progress reached the onprogress callback");
          await until(
            () => progress.length + peer.droppedProgress().length >= 3,
            "all three progress notifications",
          );
          assert.deepEqual([...progress, ...peer.droppedProgress()], [0, 50, 100]);

          const staticText = await client.readResource({ uri: "test://static-text" });
          assert.deepEqual(staticText.contents, [
            {
              uri: "test://static-text",
              mimeType: "text/plain",
              text: "This is the content of the static text resource.",
            },
          ]);
          const templated = await client.readResource({ uri: "test://template/123/data" });
          assert.equal(templated.contents.length, 1);
          assert.equal(templated.contents[0]?.uri, "test://template/123/data");
          assert.deepEqual(JSON.parse(String((templated.contents[0] as { text?: string }).text)), {
            id: "123",
            templateTest: true,
            data: "Data for ID: 123",
          });

          const prompt = await client.getPrompt({
            name: "test_prompt_with_arguments",
            arguments: { arg1: "one", arg2: "two" },
          });
          assert.deepEqual(prompt.messages, [
            {
              role: "user",
              content: { type: "text", text: "Prompt with arguments: arg1='one', arg2='two'" },
            },
          ]);
          const completed = await client.complete({
            ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
            argument: { name: "arg1", value: "testi" },
          });
          assert.deepEqual(completed.completion.values, ["testing"]);

          // Client input: real requests on legacy, input_required rounds on modern.
          const sampled = await client.callTool({
            name: "test_sampling",
            arguments: { prompt: "What is the capital of France?" },
          });
          assert.equal(text(sampled), "LLM response: Paris");
          const elicited = await client.callTool({
            name: "test_elicitation",
            arguments: { message: "Who are you?" },
          });
          assert.equal(
            text(elicited),
            'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
          );
          const mrtr = await client.callTool({
            name: "test_input_required_result_elicitation",
            arguments: {},
          });
          assert.equal(
            text(mrtr),
            'Received input: {"user_name":{"action":"accept","content":{"name":"Ada"}}}',
          );
          assert.deepEqual(peer.asked, [
            "sampling: What is the capital of France?",
            "elicitation: Who are you?",
            "elicitation: Please provide your name",
          ]);

          assert.deepEqual(
            peer.wire,
            era.era === "modern"
              ? ["input_required", "input_required", "input_required"]
              : [
                  "request sampling/createMessage",
                  "request elicitation/create",
                  "request elicitation/create",
                ],
          );

          if (transportKind === "http" && era.era === "legacy") {
            // DELETE ends the legacy session; the server must accept it.
            await (peer.transport as StreamableHTTPClientTransport).terminateSession();
          }
          assert.deepEqual(peer.unexpectedErrors(), [], `server stderr: ${peer.stderr()}`);
        } finally {
          await peer.close();
        }
      });
    }
  }
});
