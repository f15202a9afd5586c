/**
 * A private nginx for tests: round-robin over N local upstreams with no affinity, streaming
 * (no buffering, HTTP/1.1 upstream, hour-long read timeouts for SSE), every header passed on,
 * and routing around an upstream that refuses connections. Everything it writes (pid, logs,
 * temp files) lives in its own temporary directory; works as root and as any other user.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { watchChild } from "./child-watch.js";
import { freePort, portAccepting } from "./free-port.js";

export const NGINX_INSTALL_COMMAND = "apt-get install -y nginx-light (or nginx)";

export interface Nginx {
  port: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** nginx's error log so far (for assertion messages). */
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

function config(dir: string, port: number, upstreams: number[]): string {
  const servers = upstreams
    // One refused connection takes a dead instance out of the rotation for a while.
    .map((upstream) => `    server 127.0.0.1:${upstream} max_fails=1 fail_timeout=30s;`)
    .join("\n");
  // As root, nginx would switch its workers to "nobody", who cannot write to our temp dir.
  const user = process.getuid?.() === 0 ? "user root root;\n" : "";
  return `${user}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream mcp {
${servers}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://mcp;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
    }
  }
}
`;
}

/** Starts nginx in front of `upstreams` (ports on 127.0.0.1). */
export async function startNginx(who: string, upstreams: number[]): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), "mcpwire-nginx-"));
  const port = await freePort();
  const conf = join(dir, "nginx.conf");
  await writeFile(conf, config(dir, port, upstreams));
  const child: ChildProcess = spawn(
    nginxBinary(),
    ["-p", dir, "-c", conf, "-e", join(dir, "error.log"), "-g", "daemon off;"],
    // Its own process group: stop() reaches the workers too, even if the master is gone.
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const errorLog = () => readFile(join(dir, "error.log"), "utf8").catch(() => "");
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const late = setTimeout(() => killGroup(child.pid), 5000);
      await exited;
      clearTimeout(late);
    }
    killGroup(child.pid);
    await rm(dir, { recursive: true, force: true });
  };
  const failed = new Promise<never>((_, reject) => {
    child.once("error", (error) =>
      reject(
        new Error(`${who} needs nginx (${error.message}); install it: ${NGINX_INSTALL_COMMAND}`),
      ),
    );
    child.once("exit", async (code) =>
      reject(new Error(`nginx exited (${code}) at start: ${stderr}${await errorLog()}`)),
    );
  });
  failed.catch(() => {});
  try {
    await Promise.race([portAccepting(port, 10_000, "nginx"), failed]);
  } catch (error) {
    await stop();
    throw error;
  }
  watchChild("nginx", child, () => stderr);
  return { port, origin: `http://127.0.0.1:${port}`, errorLog, stop };
}

/** NGINX, else nginx from PATH, else Debian's /usr/sbin/nginx (not on a non-root user's PATH). */
function nginxBinary(): string {
  if (process.env.NGINX) return process.env.NGINX;
  const onPath = (process.env.PATH ?? "").split(":").some((dir) => existsSync(`${dir}/nginx`));
  return onPath || !existsSync("/usr/sbin/nginx") ? "nginx" : "/usr/sbin/nginx";
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}
