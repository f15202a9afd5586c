/**
 * Keeps the latest instance of a per-request class reachable, on purpose.
 *
 * V8 gives a class's instances a hidden class (a "map") that grows by transitions as the
 * constructor adds fields, and it holds those transitions weakly. A server that handles one
 * request at a time (a Worker at low traffic) often has no instance alive when a full GC runs:
 * the maps are collected, every optimised function that checks for them is thrown away
 * ("embedded weak objects cleared"), and those functions run in V8's lower tiers until it
 * optimises them again. One instance kept alive keeps its maps. On workerd at c=1 this halved
 * those deoptimisations (plain objects' maps still go) and took ~4% off the CPU a request
 * (bench/RESULTS.md).
 *
 * The price: the last request's objects of that class stay reachable until the next request's
 * replace them (one request's worth, whatever the load).
 */
const kept: unknown[] = [];

/** A function that remembers the last instance it was given, for the life of the process. */
export function keepLatest(): (instance: object) => void {
  const slot = kept.length;
  kept.push(undefined);
  return (instance) => {
    kept[slot] = instance;
  };
}
