/** Runs the `mcpwire` command in this process through run(), its output kept as text. */
import { run } from "../../src/cli/run.js";

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runInProcess(args: string[]): Promise<InProcessRun> {
  let stdout = "";
  let stderr = "";
  const code = await run(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}
