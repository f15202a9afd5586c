/**
 * The services `npm test` needs, brought up by the test command itself so that `npm install &&
 * npm test` is the whole set-up:
 *
 * - the `redis-server` and `nginx` binaries (some tests start private ones on free ports) and
 *   `chromium` (the browser client's test drives it headless through playwright-core): when one
 *   is missing, Debian as root installs the missing ones with apt-get; anywhere else we stop
 *   before any test starts, naming the one command to run;
 * - a Redis for the shared-Redis tests: REDIS_URL when set (it must answer), else the one on
 *   127.0.0.1:6379 when it answers, else a private redis-server on a free port for this run only.
 *
 * The private Redis runs under a small shell that kills it when its stdin closes, so it goes
 * away with the test run however that run ends (even SIGKILL), and nothing is left running.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { connect, createServer } from "node:net";

const DEFAULT_REDIS = "redis://127.0.0.1:6379";

function onPath(name) {
  return (process.env.PATH ?? "")
    .split(":")
    .some((dir) => dir !== "" && existsSync(`${dir}/${name}`));
}

/**
 * The binaries the tests run and the Debian package of each (`fallback`: the package to try
 * when the first is not in the archive). NGINX and CHROMIUM name other builds to use instead.
 */
const BINARIES = [
  { name: "redis-server", present: () => onPath("redis-server"), package: "redis-server" },
  {
    name: "nginx",
    // Debian puts it in /usr/sbin, which a non-root PATH may lack.
    present: () => Boolean(process.env.NGINX) || onPath("nginx") || existsSync("/usr/sbin/nginx"),
    package: "nginx-light",
    fallback: "nginx",
  },
  {
    name: "chromium",
    present: () => Boolean(process.env.CHROMIUM) || onPath("chromium"),
    package: "chromium",
  },
];

function missingBinaries() {
  return BINARIES.filter((binary) => !binary.present());
}

/** "a", "a and b", "a, b and c". */
function names(binaries) {
  const all = binaries.map((binary) => binary.name);
  return all.length > 1 ? `${all.slice(0, -1).join(", ")} and ${all.at(-1)}` : all.join("");
}

function aptGet(args) {
  const run = spawnSync("apt-get", args, {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  return run.status === 0;
}

/**
 * Makes sure the service binaries are there. Returns an error line (with the command to run)
 * when they are not and cannot be installed here, else null.
 */
export function ensureBinaries() {
  const missing = missingBinaries();
  if (missing.length === 0) return null;
  const packages = missing.map((binary) => binary.package);
  const command = `apt-get install -y ${packages.join(" ")}`;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (!root || !onPath("apt-get")) {
    return `the tests need ${names(missing)}; install ${missing.length > 1 ? "them" : "it"} first (on Debian: sudo ${command}), then run npm test again`;
  }
  process.stderr.write(`npm test: installing ${names(missing)} (${command})\n`);
  const fallbacks = missing.map((binary) => binary.fallback ?? binary.package);
  const installed =
    aptGet(["update", "-qq"]) &&
    (aptGet(["install", "-y", "-qq", ...packages]) ||
      aptGet(["install", "-y", "-qq", ...fallbacks]));
  const still = missingBinaries();
  if (installed && still.length === 0) return null;
  return `could not install ${names(still)} with apt-get; install ${still.length > 1 ? "them" : "it"} (${command}), then run npm test again`;
}

/** True when a Redis answers PING at host:port within the timeout. */
export function redisAnswers(url, timeoutMs = 1000) {
  const { protocol, hostname, port } = new URL(url);
  // TLS (rediss:) or a socket path: taken as given; the tests say so if it does not answer.
  if (protocol !== "redis:") return Promise.resolve(true);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port || 6379) });
    let reply = "";
    const done = (ok) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on("connect", () => socket.write("PING\r\n"));
    // "+PONG" without a password, "-NOAUTH" with one: either way, a Redis is there.
    socket.on("data", (chunk) => {
      reply += chunk.toString("latin1");
      if (reply.includes("\r\n")) done(/^[+-]/.test(reply));
    });
    socket.on("error", () => done(false));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts a private redis-server on a free port; it dies when `stop()` runs or we die. */
export async function startPrivateRedis() {
  const port = await freePort();
  // The shell waits on its stdin, a pipe only we hold: EOF (our exit, however it happens)
  // makes it kill redis-server.
  const guard = spawn(
    "/bin/sh",
    [
      "-c",
      'redis-server "$@" & pid=$!; read _ignored; kill "$pid" 2>/dev/null; wait "$pid"',
      "redis-guard",
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
    ],
    { stdio: ["pipe", "ignore", "inherit"] },
  );
  const url = `redis://127.0.0.1:${port}`;
  const stop = () =>
    new Promise((resolve) => {
      if (guard.exitCode !== null || guard.signalCode !== null) return resolve();
      guard.once("exit", () => resolve());
      guard.stdin.end();
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await redisAnswers(url, 200)) return { url, stop };
    if (guard.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`a private redis-server on port ${port} did not start`);
}

/**
 * The Redis the tests use: `{ url, stop }`. `stop` is a no-op unless we started it.
 * Throws (with what to do) when REDIS_URL is set but does not answer.
 */
export async function provideRedis(env = process.env) {
  if (env.REDIS_URL) {
    if (await redisAnswers(env.REDIS_URL)) return { url: env.REDIS_URL, stop: async () => {} };
    throw new Error(
      `REDIS_URL=${env.REDIS_URL} does not answer; start that Redis, or unset REDIS_URL and npm test starts a private one`,
    );
  }
  if (await redisAnswers(DEFAULT_REDIS)) return { url: DEFAULT_REDIS, stop: async () => {} };
  const started = await startPrivateRedis();
  process.stderr.write(
    `npm test: no Redis on 127.0.0.1:6379; started a private one at ${started.url}\n`,
  );
  return started;
}
