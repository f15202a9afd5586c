import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isPlainHttpUrl, printable, printableLine } from "../../src/text/printable.js";

describe("printable", () => {
  it("shows every C0, C1, DEL and bidi control as a visible escape", () => {
    const hostile = "ok\x1b]52;c;aGk=\x07\x1b[2J\r\x7f\x9b31m\u202egnp.exe\u2066\x00";
    const shown = printable(hostile);
    assert.equal(
      shown,
      "ok\\x1b]52;c;aGk=\\x07\\x1b[2J\\x0d\\x7f\\x9b31m\\u202egnp.exe\\u2066\\x00",
    );
    for (const char of shown) {
      const code = char.charCodeAt(0);
      assert.ok(
        code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0x9f),
        `raw control ${code}`,
      );
    }
  });

  it("keeps newlines and tabs in multi-line text, and escapes the newline in a line", () => {
    assert.equal(printable("a\n\tb"), "a\n\tb");
    assert.equal(printableLine("a\n\tb"), "a\\x0a\tb");
    assert.equal(printable("plain text, ünïcödé, 表"), "plain text, ünïcödé, 表");
  });

  it("accepts only plain http(s) URLs as links", () => {
    assert.equal(isPlainHttpUrl("https://example.com/consent?x=1"), true);
    assert.equal(isPlainHttpUrl("http://127.0.0.1:8080/"), true);
    assert.equal(isPlainHttpUrl("javascript:alert(1)"), false);
    assert.equal(isPlainHttpUrl("file:///etc/passwd"), false);
    assert.equal(isPlainHttpUrl("https://example.com/\x1b]8;;https://evil/\x07"), false);
    assert.equal(isPlainHttpUrl("https://a.example/ b"), false);
    assert.equal(isPlainHttpUrl("not a url"), false);
  });
});
