/**
 * What the instruction counters share: a Node process run under callgrind that warms up, says
 * "warm", waits for "go" on stdin, runs the counted work, says "done" and waits again. The
 * counters are zeroed between "warm" and "go" and dumped after "done", so only the counted
 * work is in the last dump (instructions-stdio.ts's client side, instructions-web.ts).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";

const run = promisify(execFile);

/** valgrind and its options: threads counted apart, output under `outFile`. */
export function callgrind(outFile: string): string[] {
  return [
    "/usr/bin/valgrind",
    "--tool=callgrind",
    "-q",
    "--separate-threads=yes",
    `--callgrind-out-file=${outFile}`,
  ];
}

/** Instructions of the last dump in `dir`: every thread's file, and the main thread's. */
export function readDumps(dir: string): { all: number; main: number } {
  const files = readdirSync(dir).filter((name) => name.startsWith("callgrind.out"));
  // Names end in .<dump>-<thread>; the counted dump is the highest number.
  const dumpOf = (name: string) => Number(/\.(\d+)-\d+$/.exec(name)?.[1] ?? -1);
  const last = Math.max(...files.map(dumpOf));
  let all = 0;
  let main = 0;
  for (const name of files.filter((file) => dumpOf(file) === last)) {
    const text = readFileSync(join(dir, name), "utf8");
    const total = /^(?:totals|summary): (\d+)/m.exec(text);
    const ir = Number(total?.[1] ?? Number.NaN);
    all += ir;
    if (name.endsWith("-01")) main = ir;
  }
  if (last < 0) throw new Error(`no callgrind dump in ${dir}`);
  return { all, main };
}

/**
 * Runs `node` (the command and its arguments: a driver that follows the handshake) under
 * callgrind writing into `dir`, and returns its counts of the work between "go" and "done".
 */
export async function countDriver(
  node: string[],
  dir: string,
  keep: boolean,
): Promise<{ all: number; main: number }> {
  const valgrind = callgrind(join(dir, "callgrind.out"));
  const driver: ChildProcess = spawn(valgrind[0]!, [...valgrind.slice(1), ...node], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => driver.once("exit", resolve));
  const pid = String(driver.pid);
  if (keep) process.stdout.write(`${dir}: pid ${pid}\n`);
  const lines = createInterface({ input: driver.stdout! })[Symbol.asyncIterator]();
  const expect = async (word: string) => {
    const line = await lines.next();
    if (line.done || line.value !== word) throw new Error(`driver: expected ${word}`);
  };
  try {
    await expect("warm");
    await run("callgrind_control", ["-z", pid]);
    driver.stdin!.write("go\n");
    await expect("done");
    await run("callgrind_control", ["-d", pid]);
    driver.stdin!.end();
    if ((await exited) !== 0) throw new Error("driver failed");
  } finally {
    driver.kill("SIGKILL");
  }
  return readDumps(dir);
}

/** The driver's side of the handshake: `warmUp`, wait for "go", `counted`, wait again. */
export async function driveCounted(
  warmUp: () => Promise<void>,
  counted: () => Promise<void>,
): Promise<void> {
  const commands = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  await warmUp();
  process.stdout.write("warm\n");
  await commands.next();
  await counted();
  process.stdout.write("done\n");
  await commands.next();
}
