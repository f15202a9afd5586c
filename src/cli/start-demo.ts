/**
 * `npm start`: runs the everything example server on http://127.0.0.1:3000/mcp (PORT overrides
 * the port) and says how to try it with this command. Stops with Ctrl-C.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";

const server = new URL("../../examples/everything-server.js", import.meta.url).pathname;
const port = process.env.PORT ?? "3000";

// A busy port is one line naming PORT, not the example server's stack trace.
const problem = await listenProblem(Number(port));
if (problem !== undefined) {
  process.stderr.write(`npm start: ${problem}\n`);
  process.exit(1);
}
const child = spawn(process.execPath, [server, "--http", "--port", port], {
  stdio: ["ignore", "pipe", "inherit"],
});

let buffered = "";
let announced = false;
child.stdout.setEncoding("utf8").on("data", (text: string) => {
  process.stdout.write(text);
  if (announced) return;
  buffered += text;
  const url = /listening on (\S+)/.exec(buffered)?.[1];
  if (!url) return;
  announced = true;
  process.stdout.write(
    [
      "",
      "The mcpwire everything server is running (both protocol eras on one endpoint). Try:",
      `  npx mcpwire discover ${url}`,
      `  npx mcpwire call ${url} test_simple_text`,
      `  npx mcpwire call ${url} test_tool_with_progress --era legacy`,
      `  npx mcpwire read ${url} test://static-text --json`,
      "Stop it with Ctrl-C.",
      "",
    ].join("\n"),
  );
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  process.exitCode = code ?? (signal ? 128 + (signal === "SIGINT" ? 2 : 15) : 1);
});

/** Why the example server could not listen on 127.0.0.1:<port>, found by trying it first. */
function listenProblem(portNumber: number): Promise<string | undefined> {
  if (!(Number.isInteger(portNumber) && portNumber >= 0 && portNumber <= 65535)) {
    return Promise.resolve(
      `PORT must be a port number (0 for any free one), not ${JSON.stringify(port)}`,
    );
  }
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      resolve(
        error.code === "EADDRINUSE"
          ? `port ${port} is already in use; set PORT to another one (PORT=3001 npm start, or 0 for any)`
          : `cannot listen on port ${port} (${error.code ?? error.message}); set PORT to another one`,
      );
    });
    probe.listen(portNumber, "127.0.0.1", () => probe.close(() => resolve(undefined)));
  });
}
