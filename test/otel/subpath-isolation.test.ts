/**
 * OpenTelemetry loads only through `mcpwire/otel`: a subprocess whose module resolver refuses
 * every `@opentelemetry/*` package can still import the root, the client, the server and the
 * transports, and cannot import mcpwire/otel (which proves the trap works). Loads the bundle
 * (dist/pkg): run `npm run build` first.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importWithTrap } from "../helpers/import-trap.js";

const TRAP = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith("@opentelemetry/")) throw new Error("OTEL-LOADED " + specifier);
  return next(specifier, context);
}`;

describe("mcpwire/otel is the only way in for OpenTelemetry", () => {
  it("client, server, transports and the root load no @opentelemetry package", () => {
    const run = importWithTrap(TRAP, [
      "mcpwire",
      "mcpwire/client",
      "mcpwire/server",
      "mcpwire/transports/http",
      "mcpwire/transports/stdio",
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, "imported");
  });

  it("mcpwire/otel does load the API (the trap works)", () => {
    const run = importWithTrap(TRAP, ["mcpwire/otel"]);
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /OTEL-LOADED @opentelemetry\/api/);
  });
});
