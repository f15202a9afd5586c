import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  isUriTemplate,
  MAX_EXPRESSIONS,
  MAX_TEMPLATE_LENGTH,
  UriTemplate,
  type UriTemplateVariables,
} from "../../src/server/uri-template.js";

// The variable set of RFC 6570 §3.2.
const RFC_VARIABLES: UriTemplateVariables = {
  count: ["one", "two", "three"],
  dom: ["example", "com"],
  dub: "me/too",
  hello: "Hello World!",
  half: "50%",
  var: "value",
  who: "fred",
  base: "http://example.com/home/",
  path: "/foo/bar",
  list: ["red", "green", "blue"],
  keys: { semi: ";", dot: ".", comma: "," },
  v: "6",
  x: "1024",
  y: "768",
  empty: "",
  empty_keys: {},
  undef: undefined,
};

// [template, expected expansion] from RFC 6570 §1.2 (levels) and §3.2.2–§3.2.9.
const RFC_EXAMPLES: Array<[string, string]> = [
  // Level 1 / §3.2.2 simple string expansion
  ["{var}", "value"],
  ["{hello}", "Hello%20World%21"],
  ["{half}", "50%25"],
  ["O{empty}X", "OX"],
  ["O{undef}X", "OX"],
  ["{x,y}", "1024,768"],
  ["{x,hello,y}", "1024,Hello%20World%21,768"],
  ["?{x,empty}", "?1024,"],
  ["?{x,undef}", "?1024"],
  ["?{undef,y}", "?768"],
  ["{var:3}", "val"],
  ["{var:30}", "value"],
  ["{var:20}", "value"],
  ["{path:6}", "%2Ffoo%2Fb"],
  ["{list}", "red,green,blue"],
  ["{list*}", "red,green,blue"],
  ["{keys}", "semi,%3B,dot,.,comma,%2C"],
  ["{keys*}", "semi=%3B,dot=.,comma=%2C"],
  ["map?{x,y}", "map?1024,768"],
  // Level 2 / §3.2.3 reserved expansion
  ["{+var}", "value"],
  ["{+hello}", "Hello%20World!"],
  ["{+half}", "50%25"],
  ["{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"],
  ["{+base}index", "http://example.com/home/index"],
  ["O{+empty}X", "OX"],
  ["O{+undef}X", "OX"],
  ["{+path}/here", "/foo/bar/here"],
  ["here?ref={+path}", "here?ref=/foo/bar"],
  ["up{+path}{var}/here", "up/foo/barvalue/here"],
  ["{+x,hello,y}", "1024,Hello%20World!,768"],
  ["{+path,x}/here", "/foo/bar,1024/here"],
  ["{+path:6}/here", "/foo/b/here"],
  ["{+list}", "red,green,blue"],
  ["{+list*}", "red,green,blue"],
  ["{+keys}", "semi,;,dot,.,comma,,"],
  ["{+keys*}", "semi=;,dot=.,comma=,"],
  // §3.2.4 fragment expansion
  ["X{#var}", "X#value"],
  ["X{#hello}", "X#Hello%20World!"],
  ["{#var}", "#value"],
  ["{#hello}", "#Hello%20World!"],
  ["{#half}", "#50%25"],
  ["foo{#empty}", "foo#"],
  ["foo{#undef}", "foo"],
  ["{#x,hello,y}", "#1024,Hello%20World!,768"],
  ["{#path,x}/here", "#/foo/bar,1024/here"],
  ["{#path:6}/here", "#/foo/b/here"],
  ["{#list}", "#red,green,blue"],
  ["{#list*}", "#red,green,blue"],
  ["{#keys}", "#semi,;,dot,.,comma,,"],
  ["{#keys*}", "#semi=;,dot=.,comma=,"],
  // §3.2.5 label expansion
  ["{.who}", ".fred"],
  ["{.who,who}", ".fred.fred"],
  ["{.half,who}", ".50%25.fred"],
  ["www{.dom*}", "www.example.com"],
  ["X{.var}", "X.value"],
  ["X{.x,y}", "X.1024.768"],
  ["X{.empty}", "X."],
  ["X{.undef}", "X"],
  ["X{.var:3}", "X.val"],
  ["X{.list}", "X.red,green,blue"],
  ["X{.list*}", "X.red.green.blue"],
  ["X{.keys}", "X.semi,%3B,dot,.,comma,%2C"],
  ["X{.keys*}", "X.semi=%3B.dot=..comma=%2C"],
  ["X{.empty_keys}", "X"],
  ["X{.empty_keys*}", "X"],
  // §3.2.6 path segment expansion
  ["{/who}", "/fred"],
  ["{/who,who}", "/fred/fred"],
  ["{/half,who}", "/50%25/fred"],
  ["{/who,dub}", "/fred/me%2Ftoo"],
  ["{/var}", "/value"],
  ["{/var,empty}", "/value/"],
  ["{/var,undef}", "/value"],
  ["{/var,x}/here", "/value/1024/here"],
  ["{/var:1,var}", "/v/value"],
  ["{/list}", "/red,green,blue"],
  ["{/list*}", "/red/green/blue"],
  ["{/list*,path:4}", "/red/green/blue/%2Ffoo"],
  ["{/keys}", "/semi,%3B,dot,.,comma,%2C"],
  ["{/keys*}", "/semi=%3B/dot=./comma=%2C"],
  // §3.2.7 path-style parameter expansion
  ["{;who}", ";who=fred"],
  ["{;half}", ";half=50%25"],
  ["{;empty}", ";empty"],
  ["{;v,empty,who}", ";v=6;empty;who=fred"],
  ["{;v,bar,who}", ";v=6;who=fred"],
  ["{;x,y}", ";x=1024;y=768"],
  ["{;x,y,empty}", ";x=1024;y=768;empty"],
  ["{;x,y,undef}", ";x=1024;y=768"],
  ["{;hello:5}", ";hello=Hello"],
  ["{;list}", ";list=red,green,blue"],
  ["{;list*}", ";list=red;list=green;list=blue"],
  ["{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"],
  ["{;keys*}", ";semi=%3B;dot=.;comma=%2C"],
  // §3.2.8 form-style query expansion
  ["{?who}", "?who=fred"],
  ["{?half}", "?half=50%25"],
  ["{?x,y}", "?x=1024&y=768"],
  ["{?x,y,empty}", "?x=1024&y=768&empty="],
  ["{?x,y,undef}", "?x=1024&y=768"],
  ["{?var:3}", "?var=val"],
  ["{?list}", "?list=red,green,blue"],
  ["{?list*}", "?list=red&list=green&list=blue"],
  ["{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"],
  ["{?keys*}", "?semi=%3B&dot=.&comma=%2C"],
  // §3.2.9 form-style query continuation
  ["{&who}", "&who=fred"],
  ["{&half}", "&half=50%25"],
  ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
  ["{&x,y,empty}", "&x=1024&y=768&empty="],
  ["{&var:3}", "&var=val"],
  ["{&list}", "&list=red,green,blue"],
  ["{&list*}", "&list=red&list=green&list=blue"],
  ["{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"],
  ["{&keys*}", "&semi=%3B&dot=.&comma=%2C"],
];

describe("UriTemplate.expand", () => {
  it("reproduces every example of RFC 6570 §1.2 and §3.2", () => {
    for (const [template, expected] of RFC_EXAMPLES) {
      assert.equal(new UriTemplate(template).expand(RFC_VARIABLES), expected, template);
    }
  });

  it("encodes non-ASCII as UTF-8 and keeps existing escapes only for + and #", () => {
    const t = new UriTemplate("{a}|{+a}|{#a}");
    assert.equal(
      t.expand({ a: "é/%41 😀" }),
      "%C3%A9%2F%2541%20%F0%9F%98%80%7C%C3%A9/%41%20%F0%9F%98%80%7C#%C3%A9/%41%20%F0%9F%98%80",
    );
  });

  it("percent-encodes literal characters that are not allowed in a URI", () => {
    assert.equal(new UriTemplate("a b<{x}>").expand({ x: "1" }), "a%20b%3C1%3E");
  });

  it("counts code points, not UTF-16 units, for prefixes", () => {
    assert.equal(new UriTemplate("{s:2}").expand({ s: "😀é!" }), "%F0%9F%98%80%C3%A9");
    assert.equal(new UriTemplate("{+s:2}").expand({ s: "%41bc" }), "%41b");
  });

  it("stringifies numbers and booleans and skips null", () => {
    const t = new UriTemplate("/n/{n}/{b}{?z}");
    assert.equal(t.expand({ n: 42, b: false, z: null as unknown as undefined }), "/n/42/false");
  });

  it("lists variable names in order, once each, and prints the template", () => {
    const t = new UriTemplate("{/a,b}{?c,a}{#d*}");
    assert.deepEqual(t.variableNames, ["a", "b", "c", "d"]);
    assert.equal(t.template, "{/a,b}{?c,a}{#d*}");
    assert.equal(String(t), "{/a,b}{?c,a}{#d*}");
  });
});

describe("UriTemplate construction", () => {
  it("rejects malformed templates with a clear message", () => {
    const cases: Array<[string, RegExp]> = [
      ["a{b", /unclosed "\{"/],
      ["a}b", /unmatched "\}"/],
      ["{a{b}}", /inside an expression/],
      ["{}", /empty expression/],
      ["{a-b}", /invalid variable name "a-b"/],
      ["{.a.}", /invalid variable name/],
      ["{a,}", /invalid variable name ""/],
      ["{=a}", /operator "=" is reserved/],
      ["{a:0}", /invalid prefix length/],
      ["{a:10000}", /invalid prefix length/],
      ["{a:3*}", /invalid variable name "a:3"/],
    ];
    for (const [template, pattern] of cases) {
      assert.throws(() => new UriTemplate(template), pattern, template);
      assert.throws(() => new UriTemplate(template), /^Error: Invalid URI template/, template);
    }
  });

  it("accepts dotted and percent-encoded variable names", () => {
    const t = new UriTemplate("{a.b,c%20d}");
    assert.deepEqual(t.variableNames, ["a.b", "c%20d"]);
    assert.equal(t.expand({ "a.b": "1", "c%20d": "2" }), "1,2");
  });

  it("caps template length and expression count", () => {
    assert.throws(() => new UriTemplate("a".repeat(MAX_TEMPLATE_LENGTH + 1)), /longer than/);
    const many = Array.from({ length: MAX_EXPRESSIONS + 1 }, (_, i) => `{v${i}}`).join("/");
    assert.ok(many.length < MAX_TEMPLATE_LENGTH);
    assert.throws(() => new UriTemplate(many), /more than 128 expressions/);
    const allowed = Array.from({ length: MAX_EXPRESSIONS }, (_, i) => `{v${i}}`).join("/");
    assert.equal(new UriTemplate(allowed).variableNames.length, MAX_EXPRESSIONS);
  });

  it("isUriTemplate tells templates from plain URIs", () => {
    assert.equal(isUriTemplate("file:///{path}"), true);
    assert.equal(isUriTemplate("db://x{?q}"), true);
    assert.equal(isUriTemplate("file:///etc/hosts"), false);
    assert.equal(isUriTemplate("weird://{}"), false);
    assert.equal(isUriTemplate("weird://{"), false);
  });
});

describe("UriTemplate.match", () => {
  it("matches simple variables within one path segment and decodes them", () => {
    const t = new UriTemplate("users://{org}/{id}/profile");
    assert.deepEqual(t.match("users://acme/a%20b%2Fc/profile"), { org: "acme", id: "a b/c" });
    assert.equal(t.match("users://acme/a/b/profile"), undefined);
    assert.equal(t.match("users://acme//profile"), undefined, "a simple variable needs a value");
    assert.equal(t.match("users://acme/x/profile/extra"), undefined, "anchored at the end");
    assert.equal(t.match("xusers://acme/x/profile"), undefined, "anchored at the start");
  });

  it("lets {+var} span slashes and stops before a following query", () => {
    const t = new UriTemplate("file:///{+path}{?rev,mode}");
    assert.deepEqual(t.match("file:///src/a%20b/index.ts"), { path: "src/a b/index.ts" });
    assert.deepEqual(t.match("file:///src/x.ts?mode=ro&rev=3"), {
      path: "src/x.ts",
      rev: "3",
      mode: "ro",
    });
    assert.deepEqual(t.match("file:///x?rev="), { path: "x", rev: "" });
    assert.equal(t.match("file:///x?other=1"), undefined, "unknown query parameter");
    assert.equal(t.match("file:///x?rev=1&rev=2"), undefined, "repeated plain parameter");
    assert.equal(t.match("file:///"), undefined);
  });

  it("treats query and continuation expressions as one unordered, optional set", () => {
    const t = new UriTemplate("search{?q,lang}{&page}");
    assert.deepEqual(t.match("search"), {});
    assert.deepEqual(t.match("search?page=2&q=mcp"), { page: "2", q: "mcp" });
    assert.deepEqual(t.match("search?lang=en"), { lang: "en" });
    assert.equal(t.expand({ page: 2 }), "search&page=2");
    assert.deepEqual(t.match("search&page=2"), { page: "2" });
    const withFragment = new UriTemplate("x{?q}{#f}");
    assert.deepEqual(withFragment.match("x?q=a%23b#c?d"), { q: "a#b", f: "c?d" });
    assert.deepEqual(withFragment.match("x#c"), { f: "c" });
    const fixed = new UriTemplate("list?fixed=yes{&x}");
    assert.deepEqual(fixed.match("list?fixed=yes&x=1024"), { x: "1024" });
    assert.deepEqual(fixed.match("list?fixed=yes"), {});
    assert.equal(fixed.match("list?fixed=no&x=1"), undefined);
  });

  it("returns exploded variables as arrays", () => {
    assert.deepEqual(new UriTemplate("repo{/segments*}").match("repo/a/b%2Fc/d"), {
      segments: ["a", "b/c", "d"],
    });
    assert.deepEqual(new UriTemplate("tags{?tag*}").match("tags?tag=a&tag=b"), {
      tag: ["a", "b"],
    });
    assert.deepEqual(new UriTemplate("{;list*}").match(";list=red;list=green"), {
      list: ["red", "green"],
    });
    assert.deepEqual(new UriTemplate("www{.dom*}").match("www.example.com"), {
      dom: ["example", "com"],
    });
    assert.deepEqual(new UriTemplate("x/{list*}").match("x/red,green"), { list: ["red", "green"] });
  });

  it("handles fragments and path expressions with optional parts", () => {
    const t = new UriTemplate("doc://{name}{/section}{#frag}");
    assert.deepEqual(t.match("doc://guide"), { name: "guide" });
    assert.deepEqual(t.match("doc://guide/intro#top"), {
      name: "guide",
      section: "intro",
      frag: "top",
    });
    assert.deepEqual(t.match("doc://guide#a/b,c"), { name: "guide", frag: "a/b,c" });
    assert.equal(t.match("doc://guide/intro/more"), undefined);
  });

  it("is greedy against the following literal and label", () => {
    assert.deepEqual(new UriTemplate("f/{name}.txt").match("f/a.txt.txt"), { name: "a.txt" });
    assert.deepEqual(new UriTemplate("f/{base}{.ext}").match("f/a.tar.gz"), {
      base: "a.tar",
      ext: "gz",
    });
    assert.deepEqual(new UriTemplate("f/{+dir}/{file}").match("f/a/b/c"), {
      dir: "a/b",
      file: "c",
    });
  });

  it("reads the RFC's own expansions back", () => {
    const cases: Array<[string, string, Record<string, string | string[]>]> = [
      ["{x,y}", "1024,768", { x: "1024", y: "768" }],
      ["{+path}/here", "/foo/bar/here", { path: "/foo/bar" }],
      ["{/var:1,var}", "/v/value", { var: "value" }],
      ["{;x,y,empty}", ";x=1024;y=768;empty", { x: "1024", y: "768", empty: "" }],
      ["{?x,y,empty}", "?x=1024&y=768&empty=", { x: "1024", y: "768", empty: "" }],
      ["X{.var:3}", "X.val", { var: "val" }],
      ["{/who,dub}", "/fred/me%2Ftoo", { who: "fred", dub: "me/too" }],
      ["{#path,x}/here", "#/foo/bar,1024/here", { path: "/foo/bar", x: "1024" }],
    ];
    for (const [template, uri, expected] of cases) {
      assert.deepEqual(new UriTemplate(template).match(uri), expected, template);
    }
    assert.equal(new UriTemplate("X{.var:3}").match("X.value"), undefined, "longer than prefix");
  });

  it("keeps malformed escapes as sent and treats __proto__ as an ordinary name", () => {
    assert.deepEqual(new UriTemplate("p/{v}").match("p/100%"), { v: "100%" });
    const result = new UriTemplate("p/{__proto__}").match("p/x");
    assert.deepEqual(Object.keys(result ?? {}), ["__proto__"]);
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
  });

  it("finishes quickly on long adversarial URIs", { timeout: 20_000 }, () => {
    // Shapes that make a regex-based matcher backtrack polynomially or worse.
    const size = 100_000;
    const templates = [
      "x://{a}{b}{c}{d}/end",
      "x://{a}.{b}.{c}.{d}/end",
      "x://{+a}/{+b}/{+c}/{d}.txt",
      "x://{/a*}{/b*}{/c*}/end",
      "x://{a}{.b}{.c}{.d}{?e,f}{&g}",
      "x://{+a},{+b},{+c}#{d}",
    ];
    const uris = [
      `x://${"a".repeat(size)}`,
      `x://${".".repeat(size)}!`,
      `x://${"/".repeat(size)}!`,
      `x://${"a/".repeat(size / 2)}`,
      `x://${"a.".repeat(size / 2)}?e=${"&".repeat(size)}`,
      `x://${",".repeat(size)}`,
    ];
    let matched = 0;
    for (const text of templates) {
      const template = new UriTemplate(text);
      for (const uri of uris) {
        const result = template.match(uri);
        if (result === undefined) continue;
        matched++;
        // Whatever the greedy matcher picks must be stable under expand → match.
        assert.deepEqual(template.match(template.expand(result)), result, text);
      }
    }
    assert.ok(matched < templates.length * uris.length, "most of these shapes cannot fit");
    // And a long URI that does fit.
    const long = new UriTemplate("x://{+a}/{b}.txt").match(`x://${"d/".repeat(size / 2)}f.txt`);
    assert.equal(long?.b, "f");
  });

  it("round-trips expand → match for arbitrary values", () => {
    const template = new UriTemplate("res://{a}/{b}{/c}{?q,r}{&tags*}");
    const text = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(
        text,
        text,
        fc.option(text, { nil: undefined }),
        fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        fc.option(text, { nil: undefined }),
        fc.option(fc.array(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 3 }), {
          nil: undefined,
        }),
        (a, b, c, q, r, tags) => {
          const variables = { a, b, c, q, r, tags };
          const expected = Object.fromEntries(
            Object.entries(variables).filter(([, value]) => value !== undefined),
          );
          assert.deepEqual(template.match(template.expand(variables)), expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("round-trips reserved paths, path parameters and fragments", () => {
    const template = new UriTemplate("file:///{+path}{;v,w}{#frag}");
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-zé][a-z0-9 ./é_-]{0,12}$/),
        fc.option(fc.string({ unit: "grapheme", maxLength: 6 }), { nil: undefined }),
        fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
        // A fragment keeps %XX triplets unencoded (RFC 6570 §3.2.4), so "%" cannot round-trip.
        fc.option(
          fc.string({ unit: "grapheme", maxLength: 8 }).filter((text) => !text.includes("%")),
          { nil: undefined },
        ),
        (path, v, w, frag) => {
          const variables = { path, v, w, frag };
          const expected = Object.fromEntries(
            Object.entries(variables).filter(([, value]) => value !== undefined),
          );
          assert.deepEqual(template.match(template.expand(variables)), expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
