/**
 * Instructions per request of the web handler's modern stateless path (issue 30), counted by
 * callgrind in one process, with no HTTP server and no client socket:
 *
 *   node dist/bench/instructions-web.js [--impl mcpwire|bare] [--worker] [--warmup 3000]
 *       [--requests 10000] [--in-flight 1] [--same-turn] [--keep DIR] [-- node flags for the counted process]
 *
 * What Bun.serve and workerd run, driven in-process: a `tools/call echo` Request goes into
 * mcpwire's `createHttpHandler(server, { legacy: false, responseMode: "json" }).handle`
 * (the echo server as workers/echo-worker.ts builds it) or into the bare fetch handler
 * (answerRequest, as workers/bare-worker.ts serves it), and the Response's text is read. Both
 * pay the same for undici's Request and Response, so (ours - bare) is what MCP's layers cost.
 * Each lane lets the event loop turn (one setImmediate) before its next request, as an HTTP server
 * hands each request over in a callback of its own, so that work a handler defers to a later
 * macrotask is done and counted request by request; `--same-turn` sends them back to back.
 * `--worker`: the counted process resolves mcpwire under the `worker` condition, as the Worker
 * bundle does (the web builds, @cfworker/json-schema rather than ajv).
 *
 * The counted process (this script, `--drive`) runs under `valgrind --tool=callgrind`; after the
 * warm-up its counters are zeroed, the counted requests run, and the counters are dumped. The
 * main thread's figure is the one to compare (V8's compiler threads vary from run to run). With
 * `--keep`, the pid is printed: given `-- --perf-basic-prof`, JIT code is named in
 * /tmp/perf-<pid>.map.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { countDriver, driveCounted } from "./callgrind-driver.js";
import { benchArgs } from "./cli-options.js";
import { answerRequest, MODERN, PROTOCOL_VERSION_KEY } from "./peers/bare-protocol.js";

type Impl = "mcpwire" | "bare";
type Handle = (request: Request) => Promise<Response>;

interface Options {
  impls: Impl[];
  worker: boolean;
  warmup: number;
  requests: number;
  inFlight: number;
  sameTurn: boolean;
  keep: string | undefined;
  nodeFlags: string[];
}

function parse(all: string[]): Options {
  const { own: argv, after, value } = benchArgs(all);
  const impl = value("--impl");
  if (impl !== undefined && impl !== "mcpwire" && impl !== "bare") {
    throw new Error("--impl: mcpwire or bare");
  }
  return {
    impls: impl === undefined ? ["mcpwire", "bare"] : [impl],
    worker: argv.includes("--worker"),
    warmup: Number(value("--warmup") ?? 3000),
    requests: Number(value("--requests") ?? 10_000),
    inFlight: Number(value("--in-flight") ?? 1),
    sameTurn: argv.includes("--same-turn"),
    keep: value("--keep"),
    nodeFlags: after ?? [],
  };
}

const URL_ = "http://localhost:8787/mcp";
const META = {
  [PROTOCOL_VERSION_KEY]: MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "bare-bench-client", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A conforming modern echo call, with the headers an HTTP server would hand over. */
function echoRequest(id: number, text: string): Request {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "echo", arguments: { text }, _meta: META },
  });
  return new Request(URL_, {
    method: "POST",
    headers: {
      host: "localhost:8787",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "content-length": String(Buffer.byteLength(body)),
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": "echo",
    },
    body,
  });
}

async function handlerFor(impl: Impl): Promise<Handle> {
  if (impl === "bare") return answerRequest;
  // Imported only here, so that the bare process holds nothing of mcpwire.
  const { createHttpHandler } = await import("mcpwire/transports/http");
  const { createEchoServer } = await import("./echo-tool.js");
  const handler = createHttpHandler(createEchoServer({ eras: "modern" }), {
    legacy: false,
    responseMode: "json",
  });
  return (request) => handler.handle(request);
}

let nextId = 1;

async function requests(
  handle: Handle,
  count: number,
  lanes: number,
  sameTurn: boolean,
): Promise<void> {
  let left = count;
  const lane = async () => {
    while (left-- > 0) {
      if (!sameTurn) await nextTurn();
      const id = nextId++;
      const text = `hello ${id}`;
      const response = await handle(echoRequest(id, text));
      const reply = JSON.parse(await response.text());
      if (response.status !== 200 || reply.result?.content?.[0]?.text !== text) {
        throw new Error(`echo mismatch: ${response.status} ${JSON.stringify(reply)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/** --drive: the counted process; told when to go on stdin. */
async function drive(impl: Impl, options: Options): Promise<void> {
  const handle = await handlerFor(impl);
  await driveCounted(
    () => requests(handle, options.warmup, options.inFlight, options.sameTurn),
    () => requests(handle, options.requests, options.inFlight, options.sameTurn),
  );
}

function count(impl: Impl, options: Options, dir: string) {
  const node = [
    process.execPath,
    ...(options.worker ? ["--conditions=worker"] : []),
    ...options.nodeFlags,
    fileURLToPath(import.meta.url),
    "--drive",
    impl,
    "--warmup",
    String(options.warmup),
    "--requests",
    String(options.requests),
    "--in-flight",
    String(options.inFlight),
    ...(options.sameTurn ? ["--same-turn"] : []),
  ];
  return countDriver(node, dir, options.keep !== undefined);
}

async function main(argv: string[]): Promise<void> {
  const options = parse(argv);
  const driving = argv.indexOf("--drive");
  if (driving >= 0) {
    await drive(argv[driving + 1] as Impl, options);
    process.exit(0);
  }
  const counted: Partial<Record<Impl, { all: number; main: number }>> = {};
  const conditions = options.worker ? "worker" : "node";
  for (const impl of options.impls) {
    const dir = mkdtempSync(join(options.keep ?? tmpdir(), `web-${impl}-${conditions}-`));
    try {
      const { all, main } = await count(impl, options, dir);
      counted[impl] = { all: all / options.requests, main: main / options.requests };
    } finally {
      if (options.keep === undefined) rmSync(dir, { recursive: true, force: true });
    }
    const mine = counted[impl]!;
    process.stdout.write(
      `${impl} (${conditions}): ${Math.round(mine.all)} instructions/request, main thread ` +
        `${Math.round(mine.main)} (${options.requests} requests, ${options.inFlight} in flight)\n`,
    );
  }
  const ours = counted.mcpwire;
  const bare = counted.bare;
  if (ours && bare) {
    const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
    process.stdout.write(
      "| conditions | in flight | ours (main) | bare (main) | ours - bare | ours/bare |\n" +
        "|---|---|---|---|---|---|\n" +
        `| ${conditions} | ${options.inFlight} | ${k(ours.main)} | ${k(bare.main)} ` +
        `| ${k(ours.main - bare.main)} | ${(ours.main / bare.main).toFixed(2)} |\n`,
    );
  }
}

await main(process.argv.slice(2));
