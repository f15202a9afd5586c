/**
 * A legacy Streamable HTTP server restarted mid-stream loses nothing: sessions and SSE events
 * live in files (FileSessionRecordStore + FileEventStore), the restarted process rebuilds the
 * session on the client's next request and serves its Last-Event-ID resumption. Real server
 * processes on 127.0.0.1; the restarted one listens on the port the first one picked.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { RESTARTED_BEFORE_REPLY } from "../../src/transports/http/legacy/legacy-session.js";
import { call, RawSession, SseEvents } from "../transports/http/legacy-helpers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/legacy-restart-server.js", import.meta.url));
const clientInfo = { name: "restart-resume", version: "0" };

type Fact = Record<string, unknown>;

/** One run of the fixture server: its facts (stdout JSON lines) as they come. */
class ServerProcess {
  readonly child: ChildProcess;
  readonly facts: Fact[] = [];
  readonly exited: Promise<void>;
  private readonly waiters = new Set<() => void>();

  private constructor(child: ChildProcess) {
    this.child = child;
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      this.facts.push(JSON.parse(line) as Fact);
      for (const wake of this.waiters) wake();
    });
  }

  static async start(port: number, storeDir: string, graceMs = 5_000): Promise<ServerProcess> {
    const child = spawn(process.execPath, [FIXTURE, String(port), storeDir, String(graceMs)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    live.add(child);
    child.once("exit", () => live.delete(child));
    const server = new ServerProcess(child);
    await server.waitFor((fact) => typeof fact.url === "string");
    return server;
  }

  get url(): string {
    return this.facts.find((fact) => typeof fact.url === "string")?.url as string;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The highest step the `count` tool reported as stored. */
  get storedProgress(): number {
    return Math.max(0, ...this.facts.map((fact) => Number(fact.progress ?? 0)));
  }

  /** Resolves with the first fact (past or future) that matches; rejects if the process exits. */
  waitFor(match: (fact: Fact) => boolean, timeoutMs = 20_000): Promise<Fact> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error("fact not reported in time")), timeoutMs);
      const check = () => {
        const found = this.facts.find(match);
        if (found) finish(undefined, found);
      };
      const onExit = () => finish(new Error("server exited first"));
      const finish = (error?: Error, fact?: Fact) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        this.child.off("exit", onExit);
        if (error) reject(error);
        else resolve(fact!);
      };
      this.waiters.add(check);
      this.child.once("exit", onExit);
      check();
    });
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}

const live = new Set<ChildProcess>();
const directories: string[] = [];

function storeRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "mcpwire-restart-"));
  directories.push(root);
  return root;
}

function text(result: unknown): string {
  return (result as { content: Array<{ text: string }> }).content[0]?.text ?? "";
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

/** Every path under `root`, relative to it. */
function walk(root: string, under = root): string[] {
  return readdirSync(under, { withFileTypes: true }).flatMap((entry) => {
    const path = join(under, entry.name);
    return [relative(root, path), ...(entry.isDirectory() ? walk(root, path) : [])];
  });
}

after(async () => {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
  for (const root of directories) rmSync(root, { recursive: true, force: true });
});

describe("legacy HTTP server restarted mid-stream", { timeout: 90_000 }, () => {
  it("graceful restart (SIGTERM): our client's call completes, every progress once and in order, the session goes on", async () => {
    const store = join(storeRoot(), "store");
    const first = await ServerProcess.start(0, store);
    const transport = new HttpClientTransport(first.url, {
      flavourCache: new Map(),
      maxReconnects: 12,
    });
    const client = new McpClient({ clientInfo, era: "legacy", requestTimeoutMs: 60_000 });
    try {
      await client.connect(transport);
      const sessionId = transport.sessionId;
      assert.ok(sessionId);
      const progress: number[] = [];
      const result = client.callTool(
        "count",
        { steps: 8, stepMs: 150 },
        {
          onProgress: (update) => {
            progress.push(update.progress);
            // Mid-stream: the rest is produced during the grace period, while no connection
            // carries it.
            if (update.progress === 3) first.child.kill("SIGTERM");
          },
        },
      );
      await first.exited;
      assert.ok(
        first.facts.some((fact) => fact.closed === true),
        "closed gracefully",
      );
      assert.equal(first.storedProgress, 8, "the call finished in the grace period");
      const second = await ServerProcess.start(first.port, store);
      // The rest comes from the new process, out of the store.
      const beforeRestart = progress.length;
      assert.ok(beforeRestart < 8, `${beforeRestart} progress notifications before the restart`);

      assert.equal(text(await result), "counted 8");
      assert.deepEqual(progress, range(1, 8));

      // The same session, rebuilt without a new initialize, serves the next call.
      const who = JSON.parse(text(await client.callTool("whoami", {})));
      assert.equal(who.pid, second.pid);
      assert.deepEqual(who.clientInfo, clientInfo);
      assert.equal(who.protocolVersion, "2025-11-25");
      assert.equal(transport.sessionId, sessionId);
    } finally {
      await client.close();
    }
  });

  it("graceful restart with the official SDK client: it resumes through Last-Event-ID and completes", async () => {
    const store = join(storeRoot(), "store");
    const first = await ServerProcess.start(0, store);
    const client = new Client({ name: "sdk-restart", version: "1" });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    const transport = new StreamableHTTPClientTransport(new URL(first.url), {
      // Connection refused while no process listens: the SDK retries every `retry` (100 ms).
      reconnectionOptions: {
        initialReconnectionDelay: 100,
        maxReconnectionDelay: 1_000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 200,
      },
    });
    try {
      await client.connect(transport);
      const sessionId = transport.sessionId;
      const progress: number[] = [];
      const result = client.callTool(
        { name: "count", arguments: { steps: 6, stepMs: 150 } },
        {
          timeout: 60_000,
          onprogress: (update) => {
            progress.push(update.progress);
            if (update.progress === 2) first.child.kill("SIGTERM");
          },
        },
      );
      await first.exited;
      const second = await ServerProcess.start(first.port, store);
      assert.ok(
        progress.length < 6,
        `${progress.length} progress notifications before the restart`,
      );
      assert.equal(text(await result), "counted 6");
      assert.deepEqual(progress, range(1, 6));
      const who = JSON.parse(text(await client.callTool({ name: "whoami", arguments: {} })));
      assert.equal(who.pid, second.pid);
      assert.equal(transport.sessionId, sessionId);
    } finally {
      await client.close();
    }
  });

  it("kill -9 mid-stream: stored events are replayed exactly once, then a -32603 ends the call", async () => {
    const store = join(storeRoot(), "store");
    const first = await ServerProcess.start(0, store);
    const raw = new RawSession(first.url);
    await raw.open();
    const response = await raw.post(call("count", { steps: 400, stepMs: 40 }, 7, "steps"));
    assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
    const live = new SseEvents(response);
    const priming = await live.next();
    assert.equal(priming?.message, undefined);
    const seen = [await live.next(), await live.next()];
    assert.deepEqual(
      seen.map((event) => event?.message.params.progress),
      [1, 2],
    );
    const cursor = seen[1]!.id!;
    // The client goes away; the server goes on writing to the store, then dies hard.
    await live.cancel();
    await first.waitFor((fact) => Number(fact.progress) >= 6);
    await first.kill("SIGKILL");
    const stored = first.storedProgress;

    const second = await ServerProcess.start(first.port, store);
    const replay = await new SseEvents(await raw.get(cursor)).rest();
    const replayed = replay.filter((event) => event.message?.method === "notifications/progress");
    const steps = replayed.map((event) => event.message.params.progress as number);
    // Everything stored after the cursor (the process may have stored one more than it said).
    assert.deepEqual(steps, range(3, steps.length + 2));
    assert.ok(steps.length + 2 >= stored, `replayed up to ${steps.at(-1)}, stored ${stored}`);
    const last = replay.at(-1)!;
    assert.equal(last.message.id, 7);
    assert.equal(last.message.error.code, -32603);
    assert.equal(last.message.error.message, RESTARTED_BEFORE_REPLY);
    assert.equal(replay.length, replayed.length + 1);
    const seqs = replay.map((event) => Number(event.id!.split(":").at(-1)));
    assert.deepEqual(seqs, range(3, seqs.length + 2));

    // Resuming from the same cursor again gives the same events: the error was stored.
    const again = await new SseEvents(await raw.get(cursor)).rest();
    assert.deepEqual(
      again.map((event) => event.id),
      replay.map((event) => event.id),
    );

    // The session lives on in the new process.
    const who = await raw.post(call("whoami", {}, 8));
    assert.equal(who.status, 200);
    const body = (await who.json()) as { result: unknown };
    assert.equal(JSON.parse(text(body.result)).pid, second.pid);
    await second.kill("SIGTERM");
  });

  it("kill -9 mid-stream: our client's call rejects with the -32603 (no hang), the next call works", async () => {
    const store = join(storeRoot(), "store");
    const first = await ServerProcess.start(0, store);
    const transport = new HttpClientTransport(first.url, {
      flavourCache: new Map(),
      maxReconnects: 12,
    });
    const client = new McpClient({ clientInfo, era: "legacy", requestTimeoutMs: 60_000 });
    try {
      await client.connect(transport);
      const sessionId = transport.sessionId;
      const progress: number[] = [];
      const outcome = client
        .callTool(
          "count",
          { steps: 200, stepMs: 50 },
          {
            onProgress: (update) => {
              progress.push(update.progress);
              if (update.progress === 2) first.child.kill("SIGKILL");
            },
          },
        )
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      await first.exited;
      const second = await ServerProcess.start(first.port, store);
      const error = await outcome;
      assert.ok(error instanceof JsonRpcError, String(error));
      assert.equal(error.code, -32603);
      assert.equal(error.message, RESTARTED_BEFORE_REPLY);
      // Whatever arrived (live, then replayed), once each and in order.
      assert.deepEqual(progress, range(1, progress.length));
      assert.ok(progress.length >= 2);

      const who = JSON.parse(text(await client.callTool("whoami", {})));
      assert.equal(who.pid, second.pid);
      assert.equal(transport.sessionId, sessionId);
    } finally {
      await client.close();
    }
  });

  it("an unknown session is still 404, and ids with path characters never touch other files", async () => {
    const root = storeRoot();
    const store = join(root, "store");
    const server = await ServerProcess.start(0, store);
    const hostile = ["no-such-session", "../x", "../../x", "../../../x", "/tmp/x", "..\\x", "."];
    for (const sessionId of hostile) {
      const raw = new RawSession(server.url);
      raw.sessionId = sessionId;
      const posted = await raw.post(call("whoami", {}));
      assert.equal(posted.status, 404, `POST ${sessionId}`);
      await posted.body?.cancel();
      const resumed = await raw.get("../../x:1");
      assert.equal(resumed.status, 404, `GET ${sessionId}`);
      await resumed.body?.cancel();
      const deleted = await raw.delete();
      assert.equal(deleted.status, 404, `DELETE ${sessionId}`);
      await deleted.body?.cancel();
    }
    assert.deepEqual(walk(root).sort(), ["store", "store/events", "store/sessions"]);
    await server.kill("SIGTERM");
  });
});
