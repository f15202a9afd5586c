import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { childEnvironment, defaultEnvironment } from "../../../src/transports/stdio/env.js";

describe("stdio child environment", () => {
  const source = {
    PATH: "/usr/bin",
    HOME: "/home/me",
    TERM: "() { :; }; echo pwned",
    AWS_SECRET_ACCESS_KEY: "secret",
    SYSTEMROOT: "C:\\Windows",
  };

  it("keeps only the POSIX allowlist, skipping exported bash functions", () => {
    assert.deepEqual(defaultEnvironment(source, "linux"), { PATH: "/usr/bin", HOME: "/home/me" });
  });

  it("uses the Windows allowlist on win32", () => {
    assert.deepEqual(defaultEnvironment(source, "win32"), {
      PATH: "/usr/bin",
      SYSTEMROOT: "C:\\Windows",
    });
  });

  it("adds the caller's variables on top, and copies everything with inheritEnv", () => {
    assert.deepEqual(
      childEnvironment({ source, platform: "linux", env: { PATH: "/opt/bin", EXTRA: "1" } }),
      { PATH: "/opt/bin", HOME: "/home/me", EXTRA: "1" },
    );
    assert.deepEqual(childEnvironment({ source, inheritEnv: true, env: { EXTRA: "1" } }), {
      ...source,
      EXTRA: "1",
    });
  });
});
