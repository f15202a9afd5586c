/**
 * `npm run fuzz`: the properties of fuzz.test.ts with many more runs. Not a test file (it is
 * not named *.test.ts), so npm test does not run it.
 *
 *   npm run fuzz                       # 20,000 runs per property
 *   FUZZ_RUNS=200000 npm run fuzz      # longer
 *   FUZZ_SEED=123 npm run fuzz         # reproduce a failure with the seed it printed
 */
import fc from "fast-check";
import { PROPERTIES } from "./fuzz-properties.js";

const runs = Number(process.env.FUZZ_RUNS ?? 20_000);
const seed = process.env.FUZZ_SEED === undefined ? Date.now() : Number(process.env.FUZZ_SEED);
fc.configureGlobal({ seed });
console.log(`fuzz: ${runs} runs per property, seed ${seed}`);

let failed = 0;
for (const [name, property] of Object.entries(PROPERTIES)) {
  const started = performance.now();
  try {
    await property(runs);
    console.log(`ok   ${name} (${Math.round(performance.now() - started)} ms)`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}\n${error instanceof Error ? error.message : String(error)}`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
