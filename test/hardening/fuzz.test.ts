/**
 * Fuzzing in the regular test run: every property of fuzz-properties.ts with a few hundred
 * runs (a few seconds in all). `npm run fuzz` runs the same properties far longer.
 */
import { describe, it } from "node:test";
import { PROPERTIES } from "./fuzz-properties.js";

const RUNS = 300;

describe("fuzz (short)", () => {
  for (const [name, property] of Object.entries(PROPERTIES)) {
    it(name, { timeout: 60_000 }, () => property(RUNS));
  }
});
