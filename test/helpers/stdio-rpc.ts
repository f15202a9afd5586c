import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { LocalError } from "../../src/jsonrpc/errors.js";
import type { JsonObject, JsonRpcId, JsonRpcMessage } from "../../src/jsonrpc/types.js";
import type { CloseInfo, Transport } from "../../src/protocol/transport.js";

interface Pending {
  resolve(result: JsonObject): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The least a test needs on top of a Transport: requests matched to responses by id, failed the
 * way the protocol engine fails them (on interrupted and closed), and a record of the receiver
 * calls a supervised transport makes.
 */
export class RpcPeer {
  readonly events: string[] = [];
  readonly interruptions: Error[] = [];
  closedInfo: CloseInfo | undefined;
  /** Called from the receiver's resumed(), before sends waiting for the restart go out. */
  onResumed: (() => void) | undefined;
  private readonly pending = new Map<JsonRpcId, Pending>();
  private nextId = 1;

  constructor(readonly transport: Transport) {
    transport.start({
      message: (message) => this.onMessage(message),
      closed: (info) => {
        this.events.push("closed");
        this.closedInfo = info;
        this.failAll(info.error ?? new LocalError("closed", "transport closed"));
      },
      interrupted: (error) => {
        this.events.push("interrupted");
        this.interruptions.push(error);
        this.failAll(error);
      },
      resumed: () => {
        this.events.push("resumed");
        this.onResumed?.();
      },
    });
  }

  /** Sends a request and resolves with its result; rejects on an error reply or a lost channel. */
  request(method: string, params?: JsonObject, timeoutMs = 30_000): Promise<JsonObject> {
    const id = this.nextId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no reply to ${method} (id ${id}) within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      const message: JsonRpcMessage =
        params === undefined
          ? { jsonrpc: "2.0", id, method }
          : { jsonrpc: "2.0", id, method, params };
      this.transport.send(message).catch((error: Error) => this.settle(id, undefined, error));
    });
  }

  private onMessage(message: JsonRpcMessage): void {
    if ("method" in message || message.id === null) return;
    if ("error" in message) {
      this.settle(message.id, undefined, new Error(`error reply: ${message.error.message}`));
    } else {
      this.settle(message.id, message.result);
    }
  }

  private settle(id: JsonRpcId, result: JsonObject | undefined, error?: Error): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (error) pending.reject(error);
    else pending.resolve(result!);
  }

  private failAll(error: Error): void {
    for (const id of [...this.pending.keys()]) this.settle(id, undefined, error);
  }
}

/** Whether a process still runs. Zombies (exited, not yet reaped by init) count as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * Runs test/fixtures/child-parent in `mode` and returns the JSON line it reports. The program
 * must exit on its own; the timeout only turns a hang into a failure.
 */
export function runProgram(mode: string): Promise<unknown> {
  const program = fileURLToPath(new URL("../fixtures/child-parent.js", import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [program, mode],
      { timeout: 20_000, killSignal: "SIGKILL" },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
    );
  });
}
