/**
 * The services `npm test` brings up itself (scripts/test-services.mjs): a REDIS_URL that does
 * not answer is refused before any test, and a private Redis started for a run answers and is
 * gone afterwards, however the run ends.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { freePort } from "../helpers/free-port.js";
import { until } from "../helpers/poll.js";

const REPO = resolve(fileURLToPath(import.meta.url), "../../../..");
const SCRIPT = resolve(REPO, "scripts/test-services.mjs");

interface ProvidedRedis {
  url: string;
  stop(): Promise<void>;
}
interface TestServices {
  redisAnswers(url: string, timeoutMs?: number): Promise<boolean>;
  provideRedis(env: Record<string, string | undefined>): Promise<ProvidedRedis>;
  startPrivateRedis(): Promise<ProvidedRedis>;
}

const services = (await import(pathToFileURL(SCRIPT).href)) as TestServices;

async function answersWithin(url: string, expected: boolean, waitMs: number): Promise<boolean> {
  try {
    await until(async () => (await services.redisAnswers(url, 200)) === expected, url, waitMs);
    return true;
  } catch {
    return false;
  }
}

describe("npm test's services", { timeout: 30_000 }, () => {
  it("refuses a REDIS_URL where nothing answers, naming it", async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    await assert.rejects(services.provideRedis({ REDIS_URL: url }), (error: Error) => {
      assert.match(error.message, new RegExp(`REDIS_URL=${url} does not answer`));
      return true;
    });
  });

  it("uses a REDIS_URL that answers as it is, and never stops it", async () => {
    const own = await services.startPrivateRedis();
    try {
      const given = await services.provideRedis({ REDIS_URL: own.url });
      assert.equal(given.url, own.url);
      await given.stop();
      assert.ok(await services.redisAnswers(own.url), "the given Redis still answers");
    } finally {
      await own.stop();
    }
  });

  it("starts a private Redis that answers, and stop() leaves nothing listening", async () => {
    const redis = await services.startPrivateRedis();
    assert.match(redis.url, /^redis:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(await services.redisAnswers(redis.url));
    await redis.stop();
    assert.ok(await answersWithin(redis.url, false, 2000), "the private Redis is gone");
  });

  it("stops before building anything when redis-server is missing and cannot be installed", async () => {
    // A PATH with only node on it: no redis-server, and no apt-get to install one with.
    const bin = await mkdtemp(join(tmpdir(), "mcpwire-path-"));
    try {
      await symlink(process.execPath, join(bin, "node"));
      const env = { PATH: bin, HOME: process.env.HOME ?? bin };
      const run = promisify(execFile)(process.execPath, [resolve(REPO, "scripts/test.mjs")], {
        cwd: REPO,
        env,
      });
      await assert.rejects(run, (error: { code: number; stdout: string; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.equal(error.stdout, "");
        assert.match(
          error.stderr,
          // nginx and chromium are named too where this machine lacks them.
          /^npm test: the tests need redis-server((, | and )nginx)?( and chromium)?; install (it|them) first \(on Debian: sudo apt-get install -y redis-server( nginx-light)?( chromium)?\), then run npm test again\n$/,
        );
        return true;
      });
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  it("takes its private Redis along when the test run is SIGKILLed", async () => {
    const runner = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(pathToFileURL(SCRIPT).href)});
         const r = await m.startPrivateRedis();
         process.stdout.write(r.url + "\\n");
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const url = await new Promise<string>((done, fail) => {
      let out = "";
      runner.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        if (out.includes("\n")) done(out.trim());
      });
      runner.on("exit", (code) => fail(new Error(`the runner exited early (${code})`)));
    });
    assert.ok(await services.redisAnswers(url), "the private Redis answers while the run lives");
    runner.kill("SIGKILL");
    assert.ok(await answersWithin(url, false, 5000), "the private Redis died with the run");
  });
});
