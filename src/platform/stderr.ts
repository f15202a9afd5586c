/** A line on the process's stderr, or console.error where there is no process (web runtimes). */
export function writeStderr(line: string): void {
  const stderr = globalThis.process?.stderr;
  if (stderr) stderr.write(line);
  else console.error(line.replace(/\n$/, ""));
}
