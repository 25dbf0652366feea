// The lines the person sees for each tool call, written to a captured stream.
import { expect, test } from "bun:test";
import { TerminalUI } from "../../../src/ui/terminal.ts";
import { until } from "../../support/wait.ts";

function captured(): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = { write: (c: string) => (chunks.push(String(c)), true) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join("").replace(/\x1b\[[0-9;]*m/g, "") };
}

test("a finished command keeps its status and its last lines; the count says only what is not shown", () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  ui.onToolStart("run_bash ls -1");
  ui.onToolEnd("run_bash ls -1", { content: "exit code 0\na.txt\nb.txt\nc.txt\n", isError: false });
  expect(err.text()).toBe("  run_bash ls -1\n    exit code 0\n    a.txt\n    b.txt\n    c.txt\n");
  ui.onToolEnd("run_bash seq 5", { content: "exit code 0\n\n1\n2\n3\n4\n5", isError: false });
  expect(err.text()).toEndWith("    exit code 0\n    … (2 earlier lines)\n    3\n    4\n    5\n");
  expect(ui.lastCommand).toEqual({ summary: "run_bash seq 5", content: "exit code 0\n\n1\n2\n3\n4\n5" });
});

test("a command's tabs show as the spaces a terminal gives them (to the next 8-column stop), not as \\t; other control characters stay escaped (new user: du's 36K\\t/path)", () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  ui.onToolEnd("run_bash du -sh", { content: "exit code 0\n\n36K\t/tmp/h/.npm\n1.2M\t/tmp/h/.cache\x07", isError: false });
  expect(err.text()).toBe("    exit code 0\n    36K     /tmp/h/.npm\n    1.2M    /tmp/h/.cache\\x07\n");
});

test("a failed call shows up to three lines of its error, indented, with control characters escaped", () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  ui.onToolEnd("read_file x", { content: "Error: no such file\x1b[31m x\nline two\nline three\nline four", isError: true });
  expect(err.text()).toBe("  ✗ Error: no such file\\x1b[31m x\n    line two\n    line three\n    … (1 more line)\n");
});

test("the spinner turns until the first token, then its line is cleared before the text", async () => {
  const err = captured();
  const out = captured();
  const ui = new TerminalUI({ streamText: true, verbose: false, spinner: true, out: out.stream, err: err.stream });
  ui.onModelStart();
  // Two frames, however late a loaded machine runs the timer (a fixed 200 ms missed the second when the first came 40 ms late).
  const spun = await until(() => err.text().includes("⠙ thinking") && err.text(), "the spinner's second frame");
  expect(spun).toContain("⠋ thinking");
  ui.onText("Hello");
  expect(err.text().endsWith("\r\x1b[2K")).toBe(true);
  await Bun.sleep(200);
  // Stopped: nothing more is drawn once the text has started.
  expect(err.text().endsWith("\r\x1b[2K")).toBe(true);
  expect(out.text()).toBe("Hello");
});

test("no spinner when it is off (not a terminal, TERM=dumb)", async () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: true, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  ui.onModelStart();
  await Bun.sleep(150);
  expect(err.text()).toBe("");
});

test("a failed command shows its exit status and its last lines, where the error usually is", () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  const output = ["exit code 1", "", "compiling a", "compiling b", "compiling c", "error: b.ts:3 missing ;", "1 error"].join("\n");
  ui.onToolEnd("run_bash make", { content: output, isError: true });
  expect(err.text()).toBe("  ✗ exit code 1\n    … (2 earlier lines)\n    compiling c\n    error: b.ts:3 missing ;\n    1 error\n");
});

test("a command with no output shows only its exit status", () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  ui.onToolEnd("run_bash touch a", { content: "exit code 0\n\n(no output)", isError: false });
  expect(err.text()).toBe("    exit code 0\n");
});

test("a reply cut off mid-stream and retried: where the cut one ended is marked, so its text does not read as finished", () => {
  const out = captured();
  const err = captured();
  const ui = new TerminalUI({ streamText: true, verbose: false, spinner: false, out: out.stream, err: err.stream });
  ui.onModelStart();
  ui.onText("First paragraph is complete.\n\nSecond paragraph stalls here and never");
  ui.onRetry("the API sent nothing for 3 s (the reply was cut off and will start over); retrying in 1 s");
  expect(out.text() + err.text()).toContain("Second paragraph stalls here and never\n  ⋯ (cut off here)\n  the API sent nothing for 3 s");
  // A retry before any text (a 529, say) has nothing to mark.
  const err2 = captured();
  const ui2 = new TerminalUI({ streamText: true, verbose: false, spinner: false, out: captured().stream, err: err2.stream });
  ui2.onModelStart();
  ui2.onRetry("529 overloaded; retrying in 1 s");
  expect(err2.text()).toBe("  529 overloaded; retrying in 1 s\n");
});

test("a retry notice wider than the terminal breaks between words, never inside one", () => {
  const err = captured();
  (err.stream as { columns?: number }).columns = 40;
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  ui.onRetry("the connection was cut mid-reply (ECONNRESET: The socket connection was closed unexpectedly.); retrying in 2s");
  const rows = err.text().split("\n").filter(Boolean);
  expect(rows.length).toBeGreaterThan(2);
  for (const row of rows) expect(row.length).toBeLessThan(40);
  expect(rows.join(" ").replace(/\s+/g, " ").trim()).toBe(
    "the connection was cut mid-reply (ECONNRESET: The socket connection was closed unexpectedly.); retrying in 2s",
  );
});

test("a note a tool printed (a file set aside) shows once, wrapped between words; the model's result still has it", () => {
  const err = captured();
  (err.stream as { columns?: number }).columns = 60;
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  const note = "bunker set aside .venv/bin/pytest, which the command created (your shell runs it instead of /root/.pyenv/shims/pytest when you type pytest)";
  ui.onToolStart("run_bash pip install pytest");
  ui.info(`  ${note}`);
  const content = `exit code 0\n\nSuccessfully installed pytest\n\nnote: ${note}`;
  ui.onToolEnd("run_bash pip install pytest", { content, isError: false });
  const text = err.text();
  const rows = text.split("\n");
  expect(rows.every((r) => Bun.stringWidth(r) <= 59)).toBe(true);
  expect(text.replace(/\n */g, " ").split("bunker set aside").length - 1).toBe(1);
  expect(text.replace(/\n */g, " ")).toContain(note);
  expect(rows.at(-2)).toBe("    Successfully installed pytest");
  expect(ui.lastCommand?.content).toBe(content);
});

test("a command whose output was cut in the middle says how much was cut, not only how many lines are above", () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  const head = Array.from({ length: 500 }, (_, i) => `line ${i}`);
  const tail = Array.from({ length: 500 }, (_, i) => `line ${399_500 + i}`);
  const content = ["exit code 0", "", ...head, "[… 10258895 bytes of output dropped …]", ...tail].join("\n");
  ui.onToolEnd("run_bash cat big.log", { content, isError: false });
  expect(err.text()).toContain("    … (997 earlier lines kept, after 9.8 MB cut from the middle, not kept)\n    line 399997\n");
  expect(err.text()).not.toContain("bytes of output dropped");
});

test("with the lines the cut held counted, the summary counts every earlier line (new user: 5094 of 1,999,997)", () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  const head = Array.from({ length: 500 }, (_, i) => `line ${i}`);
  const tail = Array.from({ length: 500 }, (_, i) => `line ${1_999_500 + i}`);
  const content = ["exit code 0", "", ...head, "[… 14858896 bytes (1999000 lines) of output dropped …]", ...tail].join("\n");
  ui.onToolEnd("run_bash seq 1 2000000", { content, isError: false });
  expect(err.text()).toContain("    … (1,999,997 earlier lines; 14.2 MB of them cut from the middle, not kept)\n    line 1999997\n");
});

test("a tool's own line for the person is shown instead of what the model reads; '' shows nothing; Escape's refusal says Interrupted only once", () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  ui.beginTurn();
  ui.onToolEnd("edit_file calc.py", { content: "The person refused writing calc.py and said: use a loop", isError: true, shown: "You refused this change; Claude was told why." });
  ui.onToolEnd("edit_file calc.py", { content: "Edited calc.py: replaced 1 occurrence (first at line 2) (+3 -1).", isError: false, shown: "Updated calc.py (+3 -1)" });
  // A file name with a newline stays on its line, escaped.
  ui.onToolEnd("write_file x", { content: "Created …", isError: false, shown: "Created a\nb.md (2 lines)" });
  expect(err.text()).toBe("  ✗ You refused this change; Claude was told why.\n    Updated calc.py (+3 -1)\n    Created a\\nb.md (2 lines)\n");
  // Refused with Escape at the question: the closed question said it; nothing under it, and no "Interrupted." after.
  ui.stoppedAtQuestion();
  ui.onToolEnd("write_file b.txt", { content: "The person refused writing b.txt.", isError: true, shown: "" });
  // A command whose connection was refused so: not "interrupted by the user" and the proxy's note again; what it printed stays.
  ui.onToolEnd("run_bash curl x", { content: "interrupted by the user; the command and its children were stopped\n\n(no output)\nnote: bunker's network proxy refused x:443: The person refused network access to x:443.", isError: true });
  ui.onToolEnd("run_bash make", { content: "interrupted by the user; the command and its children were stopped\n\nbuilding a\nbuilding b\nnote: bunker's network proxy refused x:443: The person refused network access to x:443.", isError: true });
  expect(err.text()).toEndWith("    Created a\\nb.md (2 lines)\n    stopped with the turn\n    building a\n    building b\n");
  ui.onInterrupted();
  ui.endTurn();
  expect(err.text()).not.toContain("The person");
  expect(err.text()).not.toContain("Interrupted.");
  // The next turn interrupted by Ctrl+C elsewhere says so.
  ui.beginTurn();
  ui.onInterrupted();
  expect(err.text()).toEndWith("Interrupted.\n");
});

test("an MCP tool's result is shown: its first lines, escaped, clipped to the screen, with how many more", () => {
  const err = captured();
  const stream = Object.assign(err.stream, { columns: 40 });
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: stream });
  ui.onToolEnd('mcp__db__query {"sql":"select"}', { content: `3 rows\x1b]52;c;aGk=\x07\n${"id,name,".repeat(10)}\nrow 2\nrow 3\n`, isError: false });
  // Each row fits the 40 columns with its indent (39 wide).
  expect(err.text()).toBe(`    3 rows\\x1b]52;c;aGk=\\x07\n    ${"id,name,".repeat(5).slice(0, 34)}…\n    row 2\n    … (1 more line)\n`);
  ui.onToolEnd("mcp__img__shot", { content: "", isError: false, images: [{}] });
  expect(err.text()).toEndWith("    (+1 image)\n");
  // Not an MCP tool: nothing (read_file's content is for the model).
  ui.onToolEnd("read_file a.ts", { content: "secret source", isError: false });
  expect(err.text()).not.toContain("secret source");
});

test("every line bunker writes is fitted between words to the width it has now, its further rows under its text; a pipe gets it whole", () => {
  const refusal = "writing src/app.ts needs approval, and bunker is not asking (no terminal or --no-prompt). To grant it, run bunker with --allow-write=src/app.ts";
  const err = captured();
  (err.stream as { columns?: number }).columns = 60;
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  ui.onToolEnd("edit_file src/app.ts", { content: refusal, isError: true });
  let rows = err.text().split("\n").filter(Boolean);
  expect(rows.length).toBeGreaterThan(2);
  expect(rows[0]).toStartWith("  ✗ writing src/app.ts");
  for (const row of rows) expect(Bun.stringWidth(row)).toBeLessThan(60);
  // The further rows start under the text, after "  ✗ ", and no word is cut.
  for (const row of rows.slice(1)) expect(row).toMatch(/^ {4}\S/);
  expect(rows.map((r) => r.replace(/^ {2}✗ | {4}/, "")).join(" ")).toBe(refusal);

  // The terminal is made wider: the next line is fitted to the new width.
  (err.stream as { columns?: number }).columns = 100;
  const before = err.text().length;
  ui.onNotice(refusal);
  rows = err.text().slice(before).split("\n").filter(Boolean);
  expect(rows.length).toBe(2);
  expect(Bun.stringWidth(rows[0]!)).toBeGreaterThan(80);

  // Not a terminal: no width, nothing wrapped.
  const piped = captured();
  const plain = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: piped.stream });
  plain.onToolEnd("edit_file src/app.ts", { content: refusal, isError: true });
  plain.onNotice(refusal);
  expect(piped.text()).toBe(`  ✗ ${refusal}\n${refusal}\n`);
});

test("a kept line wider than the screen is one row cut with …, under the indent (new user 12's N12-14: 300 KB of x at column 0)", () => {
  const err = captured();
  (err.stream as { columns?: number }).columns = 80;
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  const content = ["exit code 0", "", "red ok", "progress 100%", "x".repeat(30_000), "tab\there"].join("\n");
  ui.onToolEnd("run_bash make", { content, isError: false });
  const rows = err.text().split("\n").filter((r) => r !== "");
  expect(rows.every((r) => r.startsWith("    ") && Bun.stringWidth(r) <= 79)).toBe(true);
  expect(rows).toContain(`    ${"x".repeat(74)}…`);
  expect(rows.at(-1)).toStartWith("    tab");
});

test("a cut among the last lines is said there, in bunker's words, not as the model's bracketed marker (N12-14)", () => {
  const err = captured();
  const ui = new TerminalUI({ streamText: false, verbose: false, spinner: false, out: captured().stream, err: err.stream });
  const content = ["exit code 0", "", "red ok", "progress 100%", "[… 270093 bytes (2 lines) of output dropped …]", "xxxx", "tab here"].join("\n");
  ui.onToolEnd("run_bash build", { content, isError: false });
  expect(err.text()).toBe("    exit code 0\n    … (2 earlier lines)\n    … (2 lines, 264 KB cut from the middle, not kept)\n    xxxx\n    tab here\n");
  expect(err.text()).not.toContain("output dropped");
});
