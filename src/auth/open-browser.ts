/**
 * Opens a URL in the user's browser where there is one: $BROWSER when set, else `open` (macOS),
 * the URL protocol handler (Windows; no `cmd /c start`, whose parser would read `&` in the URL)
 * or `xdg-open`. Never fails: without a browser the user still has the printed URL. No shell is
 * involved, the URL is one argument.
 */
import { spawn } from "node:child_process";
import { ignoreError, ignoring } from "../text/ignored-error.js";

export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): void {
  const [command, ...args] = browserCommand(env);
  if (command === undefined) return;
  try {
    const child = spawn(command, [...args, url], { stdio: "ignore", detached: true });
    child.on("error", ignoring(`opening a browser with ${command}`));
    child.unref();
  } catch (error) {
    // No such command: the printed URL is enough.
    ignoreError(`opening a browser with ${command}`, error);
  }
}

function browserCommand(env: NodeJS.ProcessEnv): string[] {
  // $BROWSER may name a command with arguments, but never a shell line.
  const chosen = env.BROWSER?.trim();
  if (chosen === "none") return [];
  if (chosen) return chosen.split(/\s+/);
  if (process.platform === "darwin") return ["open"];
  if (process.platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler"];
  return ["xdg-open"];
}
