/**
 * A stdio server's whole tree dies with the program that started it, however that program dies
 * (orphan-watchdog.ts): a SIGKILLed parent takes a launcher that ignores EOF and SIGTERM, and the
 * launcher's own child, along. The watchdog is one `sh` per program, replaced if killed, and gone
 * when the program exits.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { waitFor } from "../../helpers/poll.js";
import { killLeftovers, processGoneWithin, processRunning } from "../../helpers/process-alive.js";

const PARENT = fileURLToPath(new URL("../../fixtures/tied-parent.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcpwire-watchdog-"));
const started = new Set<number>();
after(() => {
  killLeftovers(started);
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;

/** Starts tied-parent in `mode`; resolves once the launcher and its child both run. */
async function startParent(mode: "tied" | "untied" | "exit") {
  const pidFile = join(dir, `launcher-${++runs}.pids`);
  const parent = spawn(process.execPath, [PARENT, mode, pidFile], { stdio: "ignore" });
  if (parent.pid !== undefined) started.add(parent.pid);
  const [launcher, child] = await waitFor("the launcher's pid file", () =>
    existsSync(pidFile) ? readFileSync(pidFile, "utf8").split(" ").map(Number) : undefined,
  );
  started.add(launcher!);
  started.add(child!);
  return { parent, launcher: launcher!, child: child! };
}

/** The watchdogs (`sh` running our script) whose parent is `pid`. */
function watchdogsOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== pid || !processRunning(Number(entry))) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "latin1").includes("trap '' HUP INT")) {
        found.push(Number(entry));
      }
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

function killed(parent: ChildProcess, signal: NodeJS.Signals): Promise<unknown> {
  const exited = new Promise((resolve) => parent.once("exit", resolve));
  parent.kill(signal);
  return exited;
}

describe("stdio servers die with the program that started them", () => {
  it("a SIGKILLed parent takes the server and the server's own child along", async () => {
    const { parent, launcher, child } = await startParent("tied");
    assert.equal(watchdogsOf(parent.pid!).length, 1, "one watchdog per program");
    await killed(parent, "SIGKILL");
    assert.ok(await processGoneWithin(launcher, 10_000), "the launcher outlived its parent");
    assert.ok(await processGoneWithin(child, 10_000), "the launcher's child outlived it");
  });

  it("dieWithParent: false leaves the tree running", async () => {
    const { parent, launcher, child } = await startParent("untied");
    assert.deepEqual(watchdogsOf(parent.pid!), [], "no watchdog without a tied server");
    await killed(parent, "SIGKILL");
    // Given the time the tied case needs, and more: it must still be there.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(processRunning(launcher) && processRunning(child), "an untied tree was killed");
    killLeftovers([launcher]);
  });

  it("a watchdog killed from outside is replaced and still covers the server", async () => {
    const { parent, launcher, child } = await startParent("tied");
    const [first] = await waitFor("the watchdog", () => {
      const found = watchdogsOf(parent.pid!);
      return found.length > 0 ? found : undefined;
    });
    // The replacement waits out a second after the first one started (no restart loops).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    process.kill(first!, "SIGKILL");
    await waitFor("a new watchdog", () => {
      const found = watchdogsOf(parent.pid!).filter((pid) => pid !== first);
      return found.length > 0 ? found : undefined;
    });
    await killed(parent, "SIGKILL");
    assert.ok(await processGoneWithin(launcher, 10_000), "the launcher outlived its parent");
    assert.ok(await processGoneWithin(child, 10_000), "the launcher's child outlived it");
  });

  it("a program that exits normally leaves neither its tree nor the watchdog", async () => {
    const { parent, launcher, child } = await startParent("exit");
    const watchdogs = watchdogsOf(parent.pid!);
    assert.equal(watchdogs.length, 1, "one watchdog per program");
    await killed(parent, "SIGTERM"); // its handler calls process.exit(0)
    assert.ok(await processGoneWithin(launcher, 10_000), "the launcher outlived its parent");
    assert.ok(await processGoneWithin(child, 10_000), "the launcher's child outlived it");
    assert.ok(await processGoneWithin(watchdogs[0]!, 10_000), "the watchdog outlived its program");
  });
});
