/**
 * Framing throughput: NdjsonDecoder against a bare string-splitting decoder, and encodeMessage
 * against JSON.stringify + "\n". Run after a build: `node dist/bench/framing.js`.
 *
 * The input is a realistic byte stream cut into 64 KB chunks, as a pipe or socket hands it over.
 * Each case runs several interleaved rounds and reports the median, so one slow round (a GC
 * pause, a noisy neighbour) does not decide the figure.
 */
import { StringDecoder } from "node:string_decoder";
import type { JsonRpcMessage } from "../src/jsonrpc/types.js";
import { encodeMessage, NdjsonDecoder } from "../src/transports/ndjson.js";

const CHUNK_SIZE = 64 * 1024;
const ROUNDS = 7;
const MB = 1024 * 1024;

interface DecodeCase {
  name: string;
  /** Approximate size of one message on the wire. */
  messageSize: number;
  /** Approximate size of the whole stream fed per round. */
  streamSize: number;
}

const DECODE_CASES: DecodeCase[] = [
  { name: "200 B messages", messageSize: 200, streamSize: 24 * MB },
  { name: "1 MB messages", messageSize: 1 * MB, streamSize: 32 * MB },
  { name: "8 MB messages", messageSize: 8 * MB, streamSize: 24 * MB },
];

/** A tools/call result shaped like real traffic: structured items plus text, some non-ASCII. */
function makeMessage(id: number, targetSize: number): JsonRpcMessage {
  if (targetSize <= 400) {
    const message = {
      jsonrpc: "2.0" as const,
      id,
      method: "tools/call",
      params: { name: "search", arguments: { query: "", limit: 10 } },
    };
    const base = JSON.stringify(message).length;
    message.params.arguments.query = "café näive "
      .repeat(40)
      .slice(0, Math.max(0, targetSize - base));
    return message;
  }
  const items: Array<{ id: number; title: string; score: number; tags: string[] }> = [];
  let size = 0;
  for (let i = 0; size < targetSize * 0.6; i++) {
    const item = { id: i, title: `Result ${i} — résumé`, score: i / 7, tags: ["alpha", "beta"] };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  const text = "Lorem ipsum dolor sit amet, 😀 consectetur adipiscing elit. ".repeat(
    Math.ceil((targetSize - size) / 60),
  );
  return {
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text }], structuredContent: { items } },
  };
}

function buildStream(testCase: DecodeCase): { chunks: Buffer[]; count: number; bytes: number } {
  const lines: string[] = [];
  let bytes = 0;
  // A handful of distinct messages, repeated, so building the input stays cheap.
  const distinct = Array.from({ length: 8 }, (_, i) =>
    encodeMessage(makeMessage(i, testCase.messageSize)),
  );
  for (let i = 0; bytes < testCase.streamSize; i++) {
    const line = distinct[i % distinct.length]!;
    lines.push(line);
    bytes += Buffer.byteLength(line);
  }
  const whole = Buffer.from(lines.join(""));
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < whole.length; offset += CHUNK_SIZE) {
    // Copies, so each chunk is its own allocation as it would be coming off a socket.
    chunks.push(Buffer.from(whole.subarray(offset, offset + CHUNK_SIZE)));
  }
  return { chunks, count: lines.length, bytes: whole.length };
}

function decodeWithMcpwire(chunks: Buffer[]): number {
  let count = 0;
  const decoder = new NdjsonDecoder(
    {
      message: () => {
        count++;
      },
      frameError: (error) => {
        throw new Error(`unexpected frame error: ${error.kind}`);
      },
    },
    { maxMessageSize: Number.POSITIVE_INFINITY },
  );
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return count;
}

/**
 * The obvious hand-rolled decoder: accumulate text, split on "\n", keep the last partial. It does
 * not classify JSON-RPC or limit sizes. Re-splitting the growing partial on every chunk makes it
 * quadratic once a message spans many chunks, which is what the 1 MB and 8 MB rows show.
 */
function decodeWithBaseline(chunks: Buffer[]): number {
  let count = 0;
  const utf8 = new StringDecoder("utf8");
  let buffered = "";
  for (const chunk of chunks) {
    buffered += utf8.write(chunk);
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line.length > 0) {
        JSON.parse(line);
        count++;
      }
    }
  }
  buffered += utf8.end();
  if (buffered.length > 0) {
    JSON.parse(buffered);
    count++;
  }
  return count;
}

function check(got: number, expected: number, who: string): void {
  if (got !== expected) throw new Error(`${who} decoded ${got} of ${expected} messages`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function timeMs(run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

interface Row {
  name: string;
  bytes: number;
  count: number;
  oursMs: number;
  baselineMs: number;
}

function measureDecode(testCase: DecodeCase): Row {
  const { chunks, count, bytes } = buildStream(testCase);
  const runOurs = () => check(decodeWithMcpwire(chunks), count, "mcpwire");
  const runBaseline = () => check(decodeWithBaseline(chunks), count, "baseline");
  const { ours, baseline } = alternate(runOurs, runBaseline);
  return {
    name: `decode ${testCase.name}`,
    bytes,
    count,
    oursMs: median(ours),
    baselineMs: median(baseline),
  };
}

/**
 * Times both sides for ROUNDS rounds after a warm-up round, taking turns going first so drift
 * and the garbage one side leaves for the other hit both alike.
 */
function alternate(runOurs: () => void, runBaseline: () => void) {
  const ours: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const oursFirst = round % 2 === 0;
    const first = timeMs(oursFirst ? runOurs : runBaseline);
    const second = timeMs(oursFirst ? runBaseline : runOurs);
    if (round > 0) {
      ours.push(oursFirst ? first : second);
      baseline.push(oursFirst ? second : first);
    }
  }
  return { ours, baseline };
}

function measureEncode(messageSize: number, count: number): Row {
  const messages = Array.from({ length: 8 }, (_, i) => makeMessage(i, messageSize));
  const bytes =
    messages.reduce((sum, m) => sum + Buffer.byteLength(encodeMessage(m)), 0) * (count / 8);
  let sink = 0;
  const runOurs = () => {
    for (let i = 0; i < count; i++) sink += encodeMessage(messages[i & 7]!).length;
  };
  const runBaseline = () => {
    for (let i = 0; i < count; i++) sink += `${JSON.stringify(messages[i & 7]!)}\n`.length;
  };
  const { ours, baseline } = alternate(runOurs, runBaseline);
  if (sink === 0) throw new Error("nothing encoded");
  const label = messageSize >= MB ? `${messageSize / MB} MB` : `${messageSize} B`;
  return {
    name: `encode ${label} messages`,
    bytes,
    count,
    oursMs: median(ours),
    baselineMs: median(baseline),
  };
}

function formatRate(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)} M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)} k`;
  return value.toFixed(1);
}

function printTable(rows: Row[]): void {
  console.log(
    "| case | mcpwire MB/s | mcpwire msg/s | baseline MB/s | baseline msg/s | mcpwire/baseline |",
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const row of rows) {
    const mbps = (ms: number) => (row.bytes / MB / (ms / 1000)).toFixed(0);
    const mps = (ms: number) => formatRate(row.count / (ms / 1000));
    // Throughput ratio: above 1 means mcpwire is faster.
    const ratio = (row.baselineMs / row.oursMs).toFixed(2);
    console.log(
      `| ${row.name} | ${mbps(row.oursMs)} | ${mps(row.oursMs)} | ${mbps(row.baselineMs)} | ${mps(row.baselineMs)} | ${ratio} |`,
    );
  }
}

const started = Date.now();
const rows: Row[] = [];
for (const testCase of DECODE_CASES) rows.push(measureDecode(testCase));
rows.push(measureEncode(200, 200_000));
rows.push(measureEncode(1 * MB, 32));
console.log(
  `Node ${process.version}, ${CHUNK_SIZE / 1024} KB chunks, median of ${ROUNDS} rounds ` +
    `(ratio = throughput mcpwire / baseline; > 1 is faster)\n`,
);
printTable(rows);
console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s)`);
