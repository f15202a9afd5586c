/**
 * Resource hygiene under load: after 10,000 requests and 1,000 connect/close cycles over an
 * in-process pair and over TCP (and 50 stdio subprocess cycles), nothing has grown beyond a
 * fixed bound: active handles and timers, listeners on process/stdin/stdout, child processes,
 * the server's connection table, and heap.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import type { Transport } from "../../src/protocol/transport.js";
import { McpServer } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";
import {
  connectSocket,
  listenSocket,
  type SocketListener,
} from "../../src/transports/socket/index.js";
import { StdioClientTransport } from "../../src/transports/stdio/client.js";
import { until } from "../helpers/poll.js";
import { EXAMPLE_SERVER } from "./raw-stdio.js";

const REQUESTS = 10_000;
const CYCLES = 1_000;
const STDIO_CYCLES = 50;
const CONCURRENCY = 200;
/** Heap may wobble (no global.gc here); a leak of 1,000 connections or 10,000 requests would not fit. */
const HEAP_SLACK = 48 * 1024 * 1024;

const clientInfo = { name: "hygiene", version: "0" };

/** Tool calls the server has answered, so the loops provably ran. */
let served = 0;

function buildServer(): McpServer {
  const server = new McpServer({
    serverInfo: { name: "hygiene", version: "0" },
    onError: () => {},
  });
  server.tool(
    { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
    (args) => {
      served++;
      return String(args.text);
    },
  );
  return server;
}

/** Open connections the McpServer still tracks (the one table that would pin closed ones). */
function trackedConnections(server: McpServer): number {
  return (server as unknown as { connections: Set<unknown> }).connections.size;
}

function listenerTotal(emitter: NodeJS.EventEmitter): number {
  return emitter.eventNames().reduce((sum, name) => sum + emitter.listenerCount(name), 0);
}

/** Live (non-zombie) children of this process, from /proc; 0 elsewhere. */
function childProcesses(): number {
  if (process.platform !== "linux") return 0;
  let count = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === process.pid && fields[0] !== "Z") count++;
    } catch {
      // The process ended while we looked.
    }
  }
  return count;
}

interface Snapshot {
  resources: Record<string, number>;
  processListeners: number;
  stdoutListeners: number;
  stdinListeners: number;
  children: number;
  heap: number;
}

function snapshot(): Snapshot {
  const resources: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
  return {
    resources,
    processListeners: listenerTotal(process),
    stdoutListeners: listenerTotal(process.stdout),
    stdinListeners: listenerTotal(process.stdin),
    children: childProcesses(),
    heap: process.memoryUsage().heapUsed,
  };
}

/** What grew beyond the bound since `base`; empty when nothing did. */
function growth(base: Snapshot, now: Snapshot): string[] {
  const problems: string[] = [];
  // A couple of handles may be in flight at any instant (the test's own poll timer, say).
  for (const [kind, count] of Object.entries(now.resources)) {
    if (count > (base.resources[kind] ?? 0) + 2) {
      problems.push(`${kind}: ${base.resources[kind] ?? 0} → ${count}`);
    }
  }
  for (const key of [
    "processListeners",
    "stdoutListeners",
    "stdinListeners",
    "children",
  ] as const) {
    if (now[key] > base[key]) problems.push(`${key}: ${base[key]} → ${now[key]}`);
  }
  if (now.heap > base.heap + HEAP_SLACK) {
    problems.push(
      `heap: ${(base.heap / 2 ** 20).toFixed(1)} → ${(now.heap / 2 ** 20).toFixed(1)} MiB`,
    );
  }
  return problems;
}

/** Polls until nothing has grown beyond the bound; fails with what still has after 15 s. */
async function settlesBackTo(base: Snapshot, extra: () => string[] = () => []): Promise<void> {
  let problems: string[] = [];
  await until(
    () => {
      problems = [...growth(base, snapshot()), ...extra()];
      return problems.length === 0;
    },
    () => `no resource left behind; left: ${problems.join("; ")}`,
  );
}

async function requestMany(client: McpClient, count: number): Promise<void> {
  for (let start = 0; start < count; start += CONCURRENCY) {
    const batch: Array<Promise<void>> = [];
    for (let i = start; i < Math.min(count, start + CONCURRENCY); i++) {
      batch.push(
        client.callTool("echo", { text: `m${i}` }).then((result) => {
          const first = result.content[0] as { text?: string };
          assert.equal(first.text, `m${i}`);
        }),
      );
    }
    await Promise.all(batch);
  }
}

async function cycle(connect: () => Promise<Transport>, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const client = new McpClient({ clientInfo });
    await client.connect(await connect());
    await client.close();
  }
}

describe("resource hygiene", { timeout: 120_000 }, () => {
  let server: McpServer;
  let listener: SocketListener;
  const memory = async () => {
    const [serverSide, clientSide] = createMemoryPair();
    server.connect(serverSide);
    return clientSide;
  };
  const tcp = () => connectSocket(listener.address);
  const noConnectionsLeft = () => {
    const problems: string[] = [];
    if (trackedConnections(server) > 0)
      problems.push(`server connections: ${trackedConnections(server)}`);
    if (listener.connections > 0) problems.push(`TCP connections: ${listener.connections}`);
    return problems;
  };

  before(async () => {
    server = buildServer();
    listener = await listenSocket("tcp://127.0.0.1:0", (transport) => {
      server.connect(transport);
    });
    // Warm up lazily created things (ajv engines, DNS-less socket paths) before the baseline.
    await cycle(memory, 3);
    await cycle(tcp, 3);
  });
  after(() => listener.close());

  it(`${REQUESTS} requests and ${CYCLES} connect/close cycles over a memory pair`, async () => {
    const base = snapshot();
    const servedBefore = served;
    const client = new McpClient({ clientInfo });
    await client.connect(await memory());
    await requestMany(client, REQUESTS);
    assert.equal(served - servedBefore, REQUESTS);
    await client.close();
    await cycle(memory, CYCLES);
    await settlesBackTo(base, noConnectionsLeft);
  });

  it(`${REQUESTS} requests and ${CYCLES} connect/close cycles over TCP`, async () => {
    const base = snapshot();
    const servedBefore = served;
    const client = new McpClient({ clientInfo });
    await client.connect(await tcp());
    await requestMany(client, REQUESTS);
    assert.equal(served - servedBefore, REQUESTS);
    await client.close();
    await cycle(tcp, CYCLES);
    await settlesBackTo(base, noConnectionsLeft);
  });

  it(`${STDIO_CYCLES} stdio subprocess cycles leave no process, pipe or listener behind`, async () => {
    // One cycle first: the stdio client installs a single process 'exit' hook on first use.
    await stdioCycle(-1);
    const base = snapshot();
    for (let i = 0; i < STDIO_CYCLES; i++) await stdioCycle(i);
    await settlesBackTo(base);
  });
});

async function stdioCycle(i: number): Promise<void> {
  const client = new McpClient({ clientInfo });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EXAMPLE_SERVER] }),
  );
  const result = await client.callTool("echo", { text: `run ${i}` });
  assert.equal((result.content[0] as { text?: string }).text, `run ${i}`);
  await client.close();
}
