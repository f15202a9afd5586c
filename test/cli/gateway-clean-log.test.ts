/**
 * The gateway's log in normal use holds no failure lines: the reference server-everything asks
 * for roots right after initialize (answered with the gateway's own, empty, list), and its
 * elicitation and roots questions during a modern client's call are answered across the
 * client's input rounds without failing the child's question and asking it again. A real
 * failure (a child writing a hostile non-JSON line on stdout) still makes a line, with its
 * control characters made visible.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Client,
  type ClientOptions,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import {
  connectClient,
  fixture,
  OUR_EVERYTHING,
  type RunningGateway,
  SERVER_EVERYTHING,
  startGateway,
} from "./gateway-run.js";
import { runCli, stop, waitFor } from "./run-cli.js";

const MODERN: ClientOptions = { versionNegotiation: { mode: { pin: "2026-07-28" } } };
const ROOT = { uri: "file:///work/project", name: "project" };

/** Lines a healthy --verbose run may show: the wire, the child's banner, the gateway's own. */
const NORMAL = [
  /^-> /,
  /^<- /,
  /^-- server environment: /,
  /^\[child\] Starting default \(STDIO\) server\.\.\.$/,
  /^child running \(pid \d+\)$/,
  /^listening on \S+$/,
];

async function official(url: string, options: ClientOptions) {
  const client = new Client(
    { name: "clean-log", version: "1" },
    { ...options, capabilities: { roots: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler("roots/list", async () => ({ roots: [ROOT] }));
  client.setRequestHandler("elicitation/create", async () => ({
    action: "accept",
    content: { name: "Ada", color: "red", untilDate: "2030-01-01" },
  }));
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, errors };
}

const text = (result: { content?: unknown }) => JSON.stringify(result.content);

describe("gateway log: nothing but real failures", () => {
  let run: RunningGateway;
  before(async () => {
    run = await startGateway(SERVER_EVERYTHING, ["--verbose"]);
  });
  after(() => stop(run.gateway));

  const lines = () =>
    run.gateway
      .stderr()
      .split("\n")
      .filter((line) => line !== "");
  const fromChild = (method: string) =>
    lines().filter((line) => line.startsWith("<- ") && line.includes(`"method":"${method}"`));
  /**
   * The log comes through the gateway's stderr pipe and may trail the HTTP answers: once the
   * wire line of a later call shows, every earlier line is there.
   */
  let markers = 0;
  const logCaughtUp = async (echo: (message: string) => Promise<unknown>) => {
    const marker = `log-marker-${++markers}`;
    await echo(marker);
    await waitFor("the log to catch up", () =>
      lines().some((line) => line.startsWith("-> ") && line.includes(marker)) ? true : undefined,
    );
  };

  it("answers the child's roots/list at start with an empty list, not an error", async () => {
    // server-everything asks 350 ms after initialize, before any HTTP client came.
    await waitFor("the answer to the child's roots/list", () =>
      lines().find((line) => /^-> .*"result":\{"roots":\[\]\}/.test(line)),
    );
  });

  for (const [era, options] of [
    ["modern", MODERN],
    ["legacy", {}],
  ] as const) {
    it(`${era} client: an elicitation mid-call, asked of the child once`, async () => {
      const elicitationsBefore = fromChild("elicitation/create").length;
      const { client, errors } = await official(run.url, options);
      try {
        const elicited = await client.callTool({
          name: "trigger-elicitation-request",
          arguments: {},
        });
        assert.match(text(elicited), /Name: Ada/);
        // One question on the child, held open across the modern client's input round.
        await logCaughtUp((message) => client.callTool({ name: "echo", arguments: { message } }));
        assert.equal(fromChild("elicitation/create").length, elicitationsBefore + 1);
        assert.deepEqual(errors, []);
      } finally {
        await client.close();
      }
    });
  }

  it("our modern client: the same, through its own input rounds", async () => {
    const before = fromChild("elicitation/create").length;
    const { client } = await connectClient(run.url, "modern", {
      handlers: {
        elicitation: () => ({
          action: "accept",
          content: { name: "Bo", color: "blue", untilDate: "2030-01-01" },
        }),
      },
    });
    try {
      const result = await client.callTool("trigger-elicitation-request", {});
      assert.match(JSON.stringify(result.content), /Name: Bo/);
      await logCaughtUp((message) => client.callTool("echo", { message }));
      assert.equal(fromChild("elicitation/create").length, before + 1);
    } finally {
      await client.close();
    }
  });

  it("logged nothing but normal lines, and no error went to the child", () => {
    const unexpected = lines().filter((line) => !NORMAL.some((pattern) => pattern.test(line)));
    assert.deepEqual(unexpected, []);
    const errorsToChild = lines().filter((line) => line.startsWith("-> ") && /"error":/.test(line));
    assert.deepEqual(errorsToChild, []);
  });
});

describe("gateway log: a modern child's multi round-trip questions", () => {
  let run: RunningGateway;
  before(async () => {
    run = await startGateway(OUR_EVERYTHING);
  });
  after(() => stop(run.gateway));

  for (const [era, options] of [
    ["modern", MODERN],
    ["legacy", {}],
  ] as const) {
    it(`${era} client: two elicitation rounds and a roots round, nothing logged`, async () => {
      const { client, errors } = await official(run.url, options);
      try {
        const rounds = await client.callTool({
          name: "test_input_required_result_multi_round",
          arguments: {},
        });
        assert.match(text(rounds), /Rounds complete/);
        const roots = await client.callTool({
          name: "test_input_required_result_list_roots",
          arguments: {},
        });
        assert.match(text(roots), /file:\/\/\/work\/project/);
        assert.deepEqual(errors, []);
      } finally {
        await client.close();
      }
      const logged = run.gateway
        .stderr()
        .split("\n")
        .filter((line) => line !== "");
      assert.deepEqual(
        logged.filter((line) => !NORMAL.some((pattern) => pattern.test(line))),
        [],
      );
    });
  }
});

describe("gateway log: a real failure", () => {
  it("a child's hostile non-JSON stdout line is logged, control characters visible", async () => {
    const run = await startGateway([fixture("hostile-server"), "--banner"]);
    try {
      const line = await waitFor("the parse failure line", () =>
        run.gateway
          .stderr()
          .split("\n")
          .find((entry) => entry.startsWith("mcpwire gateway: ") && entry.includes("banner")),
      );
      assert.match(line, /\\x1b\]5/);
      // Nothing raw reached the operator's terminal.
      const raw = ["\x1b", "\x07", "\x9b"].filter((c) => run.gateway.stderr().includes(c));
      assert.deepEqual(raw, []);
    } finally {
      await stop(run.gateway);
    }
  });
});

describe("gateway log: a child that dies at start", () => {
  it("is told in one line, then the child's last stderr lines once, made printable", async () => {
    const script = 'process.stderr.write("boom \\x1b[31mred\\x1b[0m\\nline2\\n"); process.exit(3)';
    const run = await runCli(["gateway", "--", process.execPath, "-e", script]);
    assert.equal(run.code, 1);
    const lines = run.stderr.split("\n").filter((line) => line !== "");
    assert.equal(lines.length, 3, run.stderr);
    assert.match(
      lines[0]!,
      /^mcpwire: the child ended before it answered: MCP server "\S+" \(pid \d+\) exited with code 3; its stderr ended with:$/,
    );
    assert.deepEqual(lines.slice(1), ["  boom \\x1b[31mred\\x1b[0m", "  line2"]);
    assert.ok(!run.stderr.includes("\u001b"), "no raw escape reaches the terminal");
  });

  it("is one line when the command cannot start at all", async () => {
    const run = await runCli(["gateway", "--", "no-such-command-for-the-gateway"]);
    assert.equal(run.code, 1);
    assert.deepEqual(
      run.stderr.split("\n").filter((line) => line !== ""),
      [
        'mcpwire: could not start MCP server "no-such-command-for-the-gateway": spawn no-such-command-for-the-gateway ENOENT',
      ],
    );
  });
});
