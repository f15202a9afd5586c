/**
 * What a server asks while a verb runs (elicitation, sampling, roots), answered from flags in
 * both eras against the everything-server over HTTP, and field by field on a pseudo-terminal
 * (util-linux `script`).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  CLI,
  EVERYTHING_SERVER,
  hasScript,
  listeningAddress,
  quote,
  type Running,
  runCli,
  startProcess,
  startTerminal,
  stop,
  waitFor,
} from "./run-cli.js";
import { runInProcess } from "./run-in-process.js";

const dir = mkdtempSync(join(tmpdir(), "mcpwire-input-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("input requests answered from flags", () => {
  let server: Running;
  let url: string;

  before(async () => {
    server = startProcess(process.execPath, [EVERYTHING_SERVER, "--http", "--port", "0"]);
    url = await listeningAddress(server, "stdout");
  });
  after(() => stop(server));

  const call = (era: string, tool: string, ...rest: string[]) =>
    runCli(["call", url, tool, ...rest, "--era", era]);

  for (const era of ["modern", "legacy"]) {
    it(`--elicit (inline or a file) and --decline answer elicitation (${era})`, async () => {
      const inline = await call(
        era,
        "test_elicitation",
        '{"message":"Who?"}',
        "--elicit",
        '{"username":"ada","email":"ada@example.com"}',
      );
      assert.equal(inline.code, 0, inline.stderr);
      assert.equal(
        inline.stdout,
        'User response: action=accept, content={"username":"ada","email":"ada@example.com"}\n',
      );
      const file = join(dir, `answer-${era}.json`);
      writeFileSync(file, '{"name":"Grace"}');
      const mrtr = await call(era, "test_input_required_result_elicitation", "--elicit", file);
      assert.equal(mrtr.code, 0, mrtr.stderr);
      assert.match(mrtr.stdout, /"user_name":\{"action":"accept","content":\{"name":"Grace"\}\}/);
      const declined = await call(era, "test_elicitation", '{"message":"Who?"}', "--decline");
      assert.equal(declined.code, 0, declined.stderr);
      assert.match(declined.stdout, /action=decline/);
    });

    it(`URL-mode elicitation is declared and answered (${era})`, async () => {
      const accepted = await call(era, "test_elicitation_url", "--elicit", "{}");
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.equal(accepted.stdout, "User response: action=accept\n");
      const declined = await call(era, "test_elicitation_url", "--decline");
      assert.equal(declined.code, 0, declined.stderr);
      assert.equal(declined.stdout, "User response: action=decline\n");
    });

    it(`--sample-text and --sample-file answer sampling; without them the error names the flags (${era})`, async () => {
      const text = await call(
        era,
        "test_sampling",
        '{"prompt":"Capital?"}',
        "--sample-text",
        "Paris",
      );
      assert.equal(text.code, 0, text.stderr);
      assert.equal(text.stdout, "LLM response: Paris\n");
      const file = join(dir, `sample-${era}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          role: "assistant",
          content: { type: "text", text: "Lyon?" },
          model: "test-model",
        }),
      );
      const fromFile = await call(
        era,
        "test_sampling",
        '{"prompt":"Capital?"}',
        "--sample-file",
        file,
      );
      assert.equal(fromFile.code, 0, fromFile.stderr);
      assert.equal(fromFile.stdout, "LLM response: Lyon?\n");
      const none = await call(era, "test_sampling", '{"prompt":"Capital?"}');
      assert.equal(none.code, 1);
      assert.equal(none.stdout, "");
      assert.match(none.stderr, /sampling\/createMessage.*--sample-text <text> or --sample-file/);
    });

    it(`--root answers roots/list; without it roots are not declared (${era})`, async () => {
      const run = await call(
        era,
        "test_input_required_result_list_roots",
        "--root",
        "file:///srv/a",
        "--root",
        "file:///srv/b",
      );
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stdout,
        /"roots":\[\{"uri":"file:\/\/\/srv\/a"\},\{"uri":"file:\/\/\/srv\/b"\}\]/,
      );
      const none = await call(era, "test_input_required_result_list_roots");
      assert.equal(none.code, 1);
      assert.match(none.stderr, /roots.*--root <uri>/);
    });
  }

  it("flag mistakes are usage errors before anything is sent", async () => {
    const both = await runInProcess([
      "call",
      url,
      "test_elicitation",
      "--elicit",
      "{}",
      "--decline",
    ]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--elicit or --decline, not both/);
    const missing = await runInProcess(["call", url, "x", "--sample-file", join(dir, "nope.json")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--sample-file: cannot read/);
    const help = await runInProcess(["read", "--help"]);
    assert.match(help.stdout, /--elicit <json\|file>[\s\S]*--root <uri>/);
  });

  it("on a terminal, a form is asked field by field, defaults taken, bad input asked again", {
    skip: hasScript ? false : "util-linux script not found",
  }, async () => {
    const command = [process.execPath, CLI, "call", url, "test_elicitation_sep1034_defaults"]
      .map(quote)
      .join(" ");
    const tty = startTerminal(command);
    const seen = (pattern: RegExp) => () => (pattern.test(tty.screen()) ? true : undefined);
    try {
      await waitFor("the message", seen(/Please review your profile/));
      await waitFor("the name field", seen(/Name \(string\) \[John Doe\]: $/m));
      tty.send("\r"); // the default
      await waitFor("the age field", seen(/Age \(integer\) \[30\]: $/m));
      tty.send("thirty\r");
      await waitFor("the re-ask", seen(/not a number\r?\n.*Age \(integer\) \[30\]: $/m));
      tty.send("41\r");
      await waitFor("the score field", seen(/Score \(number\) \[95\.5\]: $/m));
      tty.send("\r");
      await waitFor("the status choices", seen(/3\) pending[\s\S]*\[active\]: $/));
      tty.send("3\r");
      await waitFor("the verified field", seen(/boolean, y\/n\) \[y\]: $/m));
      tty.send("n\r");
      await waitFor("the final question", seen(/accept\? \[Y\/n\/cancel\] $/m));
      tty.send("\r");
      const { code } = await tty.done;
      assert.equal(code, 0, tty.screen());
      assert.match(
        tty.screen(),
        /action=accept, content=\{"name":"John Doe","age":41,"score":95\.5,"status":"pending","verified":false\}/,
      );
    } finally {
      if (tty.child.exitCode === null && tty.child.signalCode === null) tty.child.kill();
      await tty.done;
    }
  });
});
