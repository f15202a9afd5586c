import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceptsBoth, isJsonContentType } from "../../../src/transports/http/request-checks.js";

describe("Accept and Content-Type checks", () => {
  it("acceptsBoth: both media types named, in any case, order, spacing or with parameters", () => {
    for (const accept of [
      "application/json, text/event-stream",
      "text/event-stream,application/json",
      "  Application/JSON ;q=0.9 ,\tTEXT/Event-Stream;q=0.5",
      "text/html, application/json, image/png, text/event-stream",
      "application/json;charset=utf-8, text/event-stream ",
    ]) {
      assert.equal(acceptsBoth(accept), true, accept);
    }
  });

  it("acceptsBoth: wildcards, one of the two, or look-alike names do not count", () => {
    for (const accept of [
      null,
      "",
      "*/*",
      "application/*, text/*",
      "application/json",
      "text/event-stream",
      "application/jsonx, text/event-stream",
      "application/json, text/event-streams",
      "xapplication/json, text/event-stream",
      "application/json text/event-stream",
    ]) {
      assert.equal(acceptsBoth(accept), false, String(accept));
    }
  });

  it("isJsonContentType: the first media type is application/json, parameters allowed", () => {
    for (const type of [
      "application/json",
      "Application/JSON; charset=utf-8",
      " application/json ",
    ]) {
      assert.equal(isJsonContentType(type), true, type);
    }
    for (const type of [
      null,
      "",
      "text/plain",
      "application/jsonl",
      "text/plain, application/json",
      "application/json-patch+json",
    ]) {
      assert.equal(isJsonContentType(type), false, String(type));
    }
  });
});
