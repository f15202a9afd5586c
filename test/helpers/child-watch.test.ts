/**
 * The helpers that start a child server for a test report its death with its exit code and its
 * stderr, whether it dies before it listens or later while the test waits for something (issue
 * 25.E2: a dead fixture once showed only as a bare ECONNREFUSED or a timeout).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listeningAddress, startProcess, stop, waitFor } from "../cli/run-cli.js";
import { spawnListening, stopChild } from "./listening-child.js";

const DYING = new URL("../fixtures/dying-listener.js", import.meta.url).pathname;
const AT_START =
  /exited with code 3 before it listened; its stderr:\n.*widget store at \/var\/widgets is missing/;
const MID_TEST =
  /exited with code 4 before the test was done; its stderr:\n(.|\n)*lost the widget store mid-test/;

/** Asks the fixture at `url` to die; its answer is the connection dropping. */
async function killVia(url: string): Promise<void> {
  await fetch(`${url}/die`).then(
    (response) => response.body?.cancel(),
    () => undefined,
  );
}

const never = () => undefined;

describe("a child server that dies", () => {
  it("spawnListening: before it listens, names its exit code and stderr", async () => {
    await assert.rejects(spawnListening(process.execPath, [DYING, "--at-start"]), AT_START);
  });

  it("spawnListening: while the test waits, waitFor fails with its exit code and stderr", async () => {
    const server = await spawnListening(process.execPath, [DYING]);
    await killVia(server.url);
    await assert.rejects(waitFor("an answer that never comes", never), MID_TEST);
  });

  it("listeningAddress: before it listens, names its exit code and stderr", async () => {
    const server = startProcess(process.execPath, [DYING, "--at-start"]);
    await assert.rejects(listeningAddress(server, "stderr"), AT_START);
  });

  it("listeningAddress: while the test waits, waitFor fails with its exit code and stderr", async () => {
    const server = startProcess(process.execPath, [DYING]);
    const url = await listeningAddress(server, "stderr");
    await killVia(url);
    await assert.rejects(waitFor("an answer that never comes", never), (error: Error) => {
      assert.match(error.message, MID_TEST);
      assert.match(error.message, /^dying-listener\.js \(pid \d+\)/);
      return true;
    });
  });

  it("a server stopped by the test is no failure for later waits", async () => {
    const first = await spawnListening(process.execPath, [DYING]);
    await stopChild(first.child);
    const second = startProcess(process.execPath, [DYING]);
    await listeningAddress(second, "stderr");
    await stop(second);
    assert.equal(await waitFor("a value", () => "here"), "here");
  });
});
