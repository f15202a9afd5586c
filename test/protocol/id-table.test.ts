/**
 * IdTable: entries by JSON-RPC id. Ids 1 and "1" are two entries (JSON-RPC matches ids
 * exactly), the size follows adds and deletes, and values() is a copy that may be changed under.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { IdTable } from "../../src/protocol/id-table.js";

describe("IdTable", () => {
  it("keeps number and string ids apart", () => {
    const table = new IdTable<string>();
    table.set(1, "number one");
    table.set("1", "string one");
    assert.equal(table.size, 2);
    assert.equal(table.get(1), "number one");
    assert.equal(table.get("1"), "string one");
    assert.equal(table.delete(1), true);
    assert.equal(table.get(1), undefined);
    assert.equal(table.get("1"), "string one");
    assert.equal(table.size, 1);
  });

  it("counts a replaced entry once and a missing delete not at all", () => {
    const table = new IdTable<number>();
    table.set(7, 1);
    table.set(7, 2);
    assert.equal(table.size, 1);
    assert.equal(table.get(7), 2);
    assert.equal(table.delete(8), false);
    assert.equal(table.delete("7"), false);
    assert.equal(table.size, 1);
    assert.equal(table.has(7), true);
  });

  it("takes ids that are property names of Object.prototype, and fractional ones", () => {
    const table = new IdTable<string>();
    assert.equal(table.get("toString"), undefined);
    assert.equal(table.get("__proto__"), undefined);
    table.set("__proto__", "p");
    table.set(1.5, "n");
    table.set("1.5", "s");
    assert.equal(table.get("__proto__"), "p");
    assert.equal(table.get(1.5), "n");
    assert.equal(table.get("1.5"), "s");
    assert.equal(table.size, 3);
  });

  it("gives the values as a copy", () => {
    const table = new IdTable<string>();
    for (let id = 0; id < 5; id++) table.set(id, `v${id}`);
    table.set("x", "vx");
    const seen: string[] = [];
    for (const value of table.values()) {
      seen.push(value);
      table.delete(seen.length - 1);
    }
    assert.deepEqual(seen.sort(), ["v0", "v1", "v2", "v3", "v4", "vx"]);
    assert.equal(table.size, 1);
  });
});
