/**
 * Progress status lines on a terminal that reports 0 columns (a pty nobody sized, some CI
 * runners) are drawn at 80 columns, not cut to nothing or short of their last character (issue
 * 25.D12); a terminal that reports a width still cuts them to it. A pseudo-terminal from
 * util-linux `script`, sized with `stty cols`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CLI, hasScript, quote, STDIO_SERVER, startTerminal } from "./run-cli.js";

const terminal = { skip: hasScript ? false : "util-linux script not found" };

/** What `call slow_count n=3` draws as its status lines on a terminal `columns` wide. */
async function statusLines(columns: number): Promise<string[]> {
  const command = [
    process.execPath,
    CLI,
    "call",
    "slow_count",
    "n=3",
    "--",
    process.execPath,
    STDIO_SERVER,
  ]
    .map(quote)
    .join(" ");
  const tty = startTerminal(`stty cols ${columns}; ${command}`);
  const { code } = await tty.done;
  assert.equal(code, 0, tty.output());
  // Each redraw starts with a carriage return; the last piece is the result.
  return tty
    .screen()
    .split("\r")
    .filter((piece) => piece.startsWith("["));
}

describe("status lines and the terminal's width", () => {
  it("0 columns: each line whole", terminal, async () => {
    const lines = await statusLines(0);
    assert.deepEqual(
      lines.map((line) => line.replace(/^\[[# ]+\] /, "")),
      ["1/3 counted 1", "2/3 counted 2", "3/3 counted 3"],
    );
  });

  it("20 columns: cut to 19, so the cursor never wraps", terminal, async () => {
    const lines = await statusLines(20);
    assert.equal(lines.length, 3);
    for (const line of lines) assert.equal(line.length, 19, JSON.stringify(line));
  });
});
