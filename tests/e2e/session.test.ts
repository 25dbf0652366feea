// End to end: saved sessions as a person uses them, bunker (src/main.ts)
// against the scripted Messages API. A conversation goes on with -c or -r,
// the model sees what came before, a crash loses at most the running round,
// and every way of naming a session wrongly says what to do instead.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, endToEnd, quitWithCtrlD, runBunker, runHeadless, waitForCount } from "../support/cli.ts";
import { tmuxAvailable } from "../support/tmux.ts";
import { until } from "../support/wait.ts";

const e2e = endToEnd("bunker-session-e2e-");
const strace = Bun.which("strace");

/** Each message of request `i` as "role: text of its blocks" (tool calls and results by name/content). */
function transcript(i: number): string[] {
  return e2e.fake.requests[i]!.body.messages.map((m: MessageParam) => {
    const blocks = typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
    const parts = blocks.map((b) => {
      if (b.type === "text") return b.text;
      if (b.type === "tool_use") return `[${b.name}]`;
      if (b.type === "tool_result") return `[result: ${typeof b.content === "string" ? b.content.split("\n")[0] : "…"}]`;
      return `[${b.type}]`;
    });
    return `${m.role}: ${parts.join(" | ")}`;
  });
}

/**
 * strace -f's lines with each call whole, at the place it returned: a call another thread interrupted is
 * logged as "PID call(args <unfinished ...>" and later "PID <... call resumed>rest) = N".
 */
function wholeCalls(log: string): string[] {
  const open = new Map<string, string>();
  const out: string[] = [];
  for (const line of log.split("\n")) {
    const pid = line.split(" ")[0]!;
    if (line.endsWith(" <unfinished ...>")) {
      open.set(pid, line.slice(0, -" <unfinished ...>".length));
      continue;
    }
    // strace pads the pid ("5683  <... fsync resumed>) = 0"): any run of spaces after it.
    const resumed = /^\d+\s+<\.\.\. \w+ resumed>(.*)$/.exec(line);
    if (resumed && open.has(pid)) {
      out.push(open.get(pid)! + resumed[1]!);
      open.delete(pid);
      continue;
    }
    out.push(line);
  }
  return out;
}

/**
 * From an strace -f log (openat, write, fdatasync, fsync): the headless run's journal, and the folder that holds
 * its entry, were each flushed (returned 0) before `answer` was written to stdout.
 */
function expectJournalOnDiskBefore(log: string, answer: string): void {
  const lines = wholeCalls(log);
  const opened = /openat\(.*sessions\.db\.pending\/[^"]+\.jsonl".*= (\d+)$/;
  const fd = opened.exec(lines.find((l) => opened.test(l)) ?? "")?.[1];
  expect(fd).toBeDefined();
  // Where the flush returned 0: on its own line, or (another thread's call logged in between, as on a loaded
  // machine) on the "<... fdatasync resumed>" line after its "<unfinished ...>" start.
  const start = lines.findIndex((l) => l.includes(`fdatasync(${fd}`));
  const pid = lines[start]?.split(" ")[0];
  const synced = lines[start]?.endsWith("= 0") ? start : lines.findIndex((l, i) => i > start && l.startsWith(`${pid} `) && l.includes("<... fdatasync resumed>") && l.endsWith("= 0"));
  const printed = lines.findIndex((l) => l.includes(`write(1, "${answer}`));
  expect(synced).toBeGreaterThan(0);
  expect(printed).toBeGreaterThan(synced);
  // The folder holding the journal's entry is flushed too (opened to be flushed, not listed: no O_DIRECTORY), and returns before the answer.
  const folder = /openat\(.*sessions\.db\.pending", O_RDONLY(?![^)]*O_DIRECTORY).*= (\d+)$/;
  const dirOpen = lines.findIndex((l) => folder.test(l));
  expect(dirOpen).toBeGreaterThan(0);
  const dirFd = folder.exec(lines[dirOpen]!)![1];
  const dirSynced = lines.findIndex((l, i) => i > dirOpen && new RegExp(`fsync\\(${dirFd}\\)\\s*= 0$`).test(l));
  expect(dirSynced).toBeGreaterThan(0);
  expect(printed).toBeGreaterThan(dirSynced);
}

describe("headless", () => {
  test("-c continues the newest session here: the model sees the earlier exchange; json names the session", async () => {
    e2e.serve([reply("The answer is 42."), reply("Still 42.")]);
    const { root, env } = e2e.workspace();
    const first = await runHeadless(root, env, ["-p", "what is the answer?", "--output-format", "json"]);
    expect(first.code).toBe(0);
    const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    expect(id).toMatch(/^[0-9a-z]{10}$/);

    const second = await runHeadless(root, env, ["-c", "-p", "are you sure?"]);
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("Still 42.\n");
    expect(transcript(1)).toEqual(["user: what is the answer?", "assistant: The answer is 42.", "user: are you sure?"]);
  });

  test("a continued session keeps its model unless -m names another", async () => {
    const fake = e2e.serve([reply("one"), reply("two"), reply("three")]);
    const { root, env } = e2e.workspace();
    await runHeadless(root, env, ["-m", "claude-special-1", "-p", "hello"]);
    const json = await runHeadless(root, env, ["-c", "-p", "again", "--output-format", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ model: "claude-special-1" });
    await runHeadless(root, env, ["-c", "-m", "claude-other-2", "-p", "once more"]);
    expect(fake.requests.map((r) => r.body.model)).toEqual(["claude-special-1", "claude-special-1", "claude-other-2"]);
  });

  test("after -c, an edit of a file read before needs a fresh read, and the model is told why", async () => {
    e2e.serve([
      reply([toolUse("read_file", { path: "a.txt" })]),
      reply("Read it."),
      reply([toolUse("edit_file", { path: "a.txt", old_string: "one", new_string: "two" })]),
      reply("I will read it again."),
    ]);
    const { root, env } = e2e.workspace({ "a.txt": "one\n" });
    await runHeadless(root, env, ["-p", "read a.txt"]);
    await runHeadless(root, env, ["-c", "--allow-write", "-p", "now edit it"]);
    const result = transcript(3).at(-1)!;
    expect(result).toContain("You have not read a.txt in this session (reads from before this session was continued do not count: the file may have changed since)");
  });

  test("-r ID (or a prefix of it) continues that session, not the newest", async () => {
    e2e.serve([reply("about apples"), reply("about pears"), reply("back to apples")]);
    const { root, env } = e2e.workspace();
    const apples = JSON.parse((await runHeadless(root, env, ["-p", "apples", "--output-format", "json"])).stdout) as { session_id: string };
    await runHeadless(root, env, ["-p", "pears"]);
    const r = await runHeadless(root, env, ["-r", apples.session_id.slice(0, 6), "-p", "more apples"]);
    expect(r.code).toBe(0);
    expect(transcript(2)).toEqual(["user: apples", "assistant: about apples", "user: more apples"]);
  });

  test("a bare --resume lists this workspace's sessions, newest first, without needing a key", async () => {
    e2e.serve([reply("one"), reply("two")]);
    const { root, env } = e2e.workspace();
    await runHeadless(root, env, ["-p", "fix the parser\nand the lexer"]);
    await runHeadless(root, env, ["-p", "write the docs"]);
    const { ANTHROPIC_API_KEY: _key, ...noKey } = env;
    const r = await runHeadless(root, noKey, ["--resume"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe(`Sessions in ${root}, newest first:`);
    expect(lines[1]).toMatch(/^ {2}[0-9a-z]{10} {2}just now +1 prompt +write the docs$/);
    expect(lines[2]).toMatch(/^ {2}[0-9a-z]{10} {2}just now +1 prompt +fix the parser$/);
    expect(lines[3]).toBe("Continue one with: bunker -r ID  (the newest: bunker -c)");

    const elsewhere = join(root, "..", "other");
    mkdirSync(elsewhere);
    const none = await runHeadless(elsewhere, noKey, ["-r"]);
    expect(none.stdout).toBe(`No saved sessions in ${elsewhere}.\n`);
  });

  test("a session from another workspace, an unknown id, or -c with -r: exit 2 and what to run instead", async () => {
    const fake = e2e.serve([reply("hi")]);
    const { root, env } = e2e.workspace();
    const id = (JSON.parse((await runHeadless(root, env, ["-p", "hello", "--output-format", "json"])).stdout) as { session_id: string }).session_id;
    const elsewhere = join(root, "..", "other");
    mkdirSync(elsewhere);

    const moved = await runHeadless(elsewhere, env, ["-r", id, "-p", "again"]);
    expect(moved.code).toBe(2);
    expect(moved.stderr).toBe(`bunker: session ${id} was in ${root}, not here: run bunker -C ${root} -r ${id}\n`);

    const unknown = await runHeadless(root, env, ["-r", "zzzzzzzz", "-p", "again"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("bunker: no saved session zzzzzzzz (bunker --resume lists them)\n");
    // Without a prompt too (stdin /dev/null): the unknown or misplaced session is the problem to name, not the prompt.
    const noPrompt = await runHeadless(root, env, ["-r", "zzzz"]);
    expect({ code: noPrompt.code, stderr: noPrompt.stderr }).toEqual({ code: 2, stderr: "bunker: no saved session zzzz (bunker --resume lists them)\n" });
    const movedNoPrompt = await runHeadless(elsewhere, env, ["-r", id]);
    expect(movedNoPrompt.stderr).toBe(`bunker: session ${id} was in ${root}, not here: run bunker -C ${root} -r ${id}\n`);
    // A session that is here, with no prompt: the prompt is what is missing.
    expect((await runHeadless(root, env, ["-r", id])).stderr).toStartWith("bunker: no prompt: stdin is not a terminal and was empty.");

    const listAndRun = await runHeadless(root, env, ["--resume", "-p", "again"]);
    expect(listAndRun.code).toBe(2);
    expect(listAndRun.stderr).toContain("--resume without an id lists the sessions and runs nothing; to continue one, give its id");
    const emptyId = await runHeadless(root, env, ["--resume=", "-p", "again"]);
    expect(emptyId.code).toBe(2);
    expect(emptyId.stderr).toContain("--resume= names no session (an empty id, perhaps an unset variable)");

    const both = await runHeadless(root, env, ["-c", "-r", id, "-p", "again"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("use -c (the newest session here) or -r ID (that session), not both");
    expect(fake.requests.length).toBe(1);
  });

  test("a run that failed before any answer is not saved: -c does not continue it", async () => {
    e2e.serve([{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, reply("fresh")]);
    const { root, env } = e2e.workspace();
    const failed = await runHeadless(root, { ...env, BUNKER_RETRY_BASE_MS: "1" }, ["-p", "never answered"]);
    expect(failed.code).toBe(1);
    const { ANTHROPIC_API_KEY: _key, ...noKey } = env;
    expect((await runHeadless(root, noKey, ["--resume"])).stdout).toBe(`No saved sessions in ${root}.\n`);
    const next = await runHeadless(root, env, ["-c", "-p", "hello"]);
    expect(next.stderr).toContain("No earlier session in this workspace: starting a new one.");
    expect(next.stdout).toBe("fresh\n");
  });

  test("--no-session-persistence: the turn runs and prints as usual, and nothing is saved: no store, nothing to continue, no session id", async () => {
    e2e.serve([reply([toolUse("read_file", { path: "a.txt" })]), reply("It says hi."), reply("fresh")]);
    const { root, env } = e2e.workspace({ "a.txt": "hi\n" });
    const r = await runHeadless(root, env, ["-p", "read a.txt", "--no-session-persistence", "--output-format", "json"]);
    expect(r.stderr).toBe("  read_file a.txt\n");
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(result.result).toBe("It says hi.");
    // As for a run that got no answer: no session to name.
    expect(result).toHaveProperty("session_id", null);
    expect(existsSync(join(env.HOME!, ".local/state/bunker/sessions.db"))).toBe(false);
    const next = await runHeadless(root, env, ["-c", "-p", "hello"]);
    expect(next.stderr).toContain("No earlier session in this workspace: starting a new one.");
    expect(next.stdout).toBe("fresh\n");
  });

  test("--no-session-persistence with -c, -r or --undo is refused: they work on a saved session (exit 2, nothing runs)", async () => {
    const fake = e2e.serve([reply("never")]);
    const { root, env } = e2e.workspace();
    for (const [flags, named] of [[["-c", "-p", "x"], "-c"], [["-r", "abcdefghjk", "-p", "x"], "--resume"], [["--undo"], "--undo"]] as const) {
      const r = await runHeadless(root, env, [...flags, "--no-session-persistence"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`bunker: --no-session-persistence saves nothing, so it cannot be used with ${named}, which works on a saved session: leave one of them out\n`);
    }
    expect(fake.requests).toHaveLength(0);
  });

  test("-c with nothing to continue says so and starts a new session", async () => {
    e2e.serve([reply("fresh")]);
    const { root, env } = e2e.workspace();
    const r = await runHeadless(root, env, ["-c", "-p", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("fresh\n");
    expect(r.stderr).toContain("No earlier session in this workspace: starting a new one.");
    expect(transcript(0)).toEqual(["user: hello"]);
  });

  test("killed mid-turn: the finished tool round is kept, and the next turn goes on from it", async () => {
    const fake = e2e.serve([
      reply([toolUse("read_file", { path: "notes.txt" })]),
      // The second call hangs: bunker is killed while waiting for it.
      { ...reply("never sent"), delayMs: 60_000 },
      reply("The notes say hello."),
    ]);
    const { root, env } = e2e.workspace({ "notes.txt": "hello\n" });
    const proc = Bun.spawn([...BUNKER, "-p", "read the notes"], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const deadline = Date.now() + 15_000;
    while (fake.requests.length < 2 && Date.now() < deadline) await Bun.sleep(20);
    expect(fake.requests.length).toBe(2);
    proc.kill("SIGKILL");
    await proc.exited;

    const r = await runHeadless(root, env, ["-c", "-p", "go on"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("The notes say hello.\n");
    expect(transcript(2)).toEqual([
      "user: read the notes",
      "assistant: [read_file]",
      "user: [result: 1\thello] | go on",
    ]);
  });

  test("a continued session already past the compaction threshold is compacted before its first request, and the person is told", async () => {
    const big = (n: number) => `${n}: ${"data ".repeat(400)}\n`;
    e2e.serve([
      reply([toolUse("read_file", { path: "a.txt" })]),
      reply([toolUse("read_file", { path: "b.txt" })]),
      reply([toolUse("read_file", { path: "c.txt" })]),
      // The last request of the first run took 150,000 of the 200,000 tokens: 75%, past the 70% threshold.
      reply("Read all three.", "end_turn", { usage: { input_tokens: 149_000, output_tokens: 1000 } }),
      reply("Going on."),
    ]);
    const { root, env } = e2e.workspace({ "a.txt": big(1), "b.txt": big(2), "c.txt": big(3) });
    expect((await runHeadless(root, env, ["-p", "read a, b and c"])).code).toBe(0);
    const r = await runHeadless(root, env, ["-c", "-p", "go on"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("Context 75% full: elided the output of 1 earlier tool call");
    // The first request of the continued run already carries the shortened output: the oldest read is elided, the last two rounds kept.
    expect(transcript(4).filter((l) => l.startsWith("user: [result")).map((l) => l.includes("Output elided"))).toEqual([true, false, false]);
  });

  test("a relative XDG_STATE_HOME is ignored (the store would land in the project)", async () => {
    e2e.serve([reply("ok")]);
    const { root, env } = e2e.workspace();
    const r = await runHeadless(root, { ...env, XDG_STATE_HOME: "relstate" }, ["-p", "hi", "--output-format", "json"]);
    expect(r.code).toBe(0);
    const { session_id } = JSON.parse(r.stdout) as { session_id: string };
    expect((await runHeadless(root, { ...env, XDG_STATE_HOME: "relstate" }, ["--resume"])).stdout).toContain(`  ${session_id}  `);
    expect(existsSync(join(root, "relstate"))).toBe(false);
    expect(existsSync(join(env.HOME!, ".local", "state", "bunker", "sessions.db"))).toBe(true);
  });

  test("a headless run's session is written to its own journal and flushed to disk before the answer is printed; the store itself is not touched until the next run reads it", async () => {
    e2e.serve([reply([toolUse("read_file", { path: "a.txt" })]), reply("It says hi."), reply("Still hi.")]);
    const { root, env } = e2e.workspace({ "a.txt": "hi\n" });
    const state = join(env.HOME!, ".local", "state", "bunker");
    const log = join(root, "..", "strace.log");
    const traced = strace ? [strace, "-f", "-qq", "-e", "trace=openat,write,fdatasync,fsync", "-o", log] : [];
    const r = await runBunker(["-p", "read a.txt"], { cwd: root, env, argv: [...traced, ...BUNKER] });
    expect(r.stdout).toBe("It says hi.\n");
    expect(existsSync(join(state, "sessions.db"))).toBe(false);
    expect(readdirSync(join(state, "sessions.db.pending"))).toHaveLength(1);
    if (strace) expectJournalOnDiskBefore(readFileSync(log, "utf8"), "It says hi.");
    // The next run that reads sessions takes the journal into the store, on disk before the journal is removed.
    const foldLog = join(root, "..", "strace-fold.log");
    // -y: each descriptor with its path, so a call split around another thread's (<unfinished ...>) is still found.
    const foldTraced = strace ? [strace, "-f", "-qq", "-y", "-e", "trace=pwrite64,fdatasync,fsync,unlink,unlinkat", "-o", foldLog] : [];
    const next = await runBunker(["-c", "-p", "again"], { cwd: root, env, argv: [...foldTraced, ...BUNKER] });
    expect(next.stdout).toBe("Still hi.\n");
    if (strace) {
      const lines = readFileSync(foldLog, "utf8").split("\n");
      const removed = lines.findIndex((l) => /unlink(at)?\(.*sessions\.db\.pending\/[^"]+\.jsonl"/.test(l));
      expect(removed).toBeGreaterThan(0);
      // The fold's last write to the log, then a flush of the log, then the journal's removal (SQLite's flush of a
      // new log's header comes before the fold's frames: it does not count). The removal follows the flush's return.
      const before = lines.slice(0, removed);
      const lastWrite = before.findLastIndex((l) => /pwrite64\(\d+<[^>]*sessions\.db-wal>/.test(l));
      expect(lastWrite).toBeGreaterThan(0);
      expect(before.slice(lastWrite).some((l) => /f(data)?sync\(\d+<[^>]*sessions\.db-wal>/.test(l))).toBe(true);
    }
    expect(transcript(2).slice(0, 4)).toEqual(["user: read a.txt", "assistant: [read_file]", "user: [result: 1\thi]", "assistant: It says hi."]);
    expect(existsSync(join(state, "sessions.db"))).toBe(true);
  });

  test("in a state folder made by an earlier run, the new journal and its entry in the folder are on disk before the answer", async () => {
    e2e.serve([reply("first"), reply("second")]);
    const { root, env } = e2e.workspace();
    expect((await runHeadless(root, env, ["-p", "one"])).stdout).toBe("first\n");
    const log = join(root, "..", "strace-again.log");
    const traced = strace ? [strace, "-f", "-qq", "-e", "trace=openat,write,fdatasync,fsync", "-o", log] : [];
    const r = await runBunker(["-p", "two"], { cwd: root, env, argv: [...traced, ...BUNKER] });
    expect(r.stdout).toBe("second\n");
    expect(readdirSync(join(env.HOME!, ".local", "state", "bunker", "sessions.db.pending"))).toHaveLength(2);
    if (strace) expectJournalOnDiskBefore(readFileSync(log, "utf8"), "second");
  });

  test("a store that cannot be opened is a warning: the turn still runs, unsaved", async () => {
    e2e.serve([reply("done anyway")]);
    const { root, env } = e2e.workspace();
    const blocker = join(root, "..", "state-is-a-file");
    writeFileSync(blocker, "");
    const r = await runHeadless(root, { ...env, XDG_STATE_HOME: blocker }, ["-p", "hi", "--output-format", "json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`This session will not be saved: cannot open the session store ${blocker}/bunker/sessions.db`);
    const out = JSON.parse(r.stdout) as { result: string; session_id?: string | null };
    expect(out.result).toBe("done anyway");
    // Not saved: null, the key there as in every result (N13-03).
    expect(out.session_id).toBeNull();
  });
});

describe.skipIf(!tmuxAvailable)("in a real terminal (tmux)", () => {
  test("leaving says how to continue; -c brings back the conversation and the plan; /clear starts a new session", async () => {
    const plan = [{ id: "1", text: "Read the notes", status: "completed" }, { id: "2", text: "Summarise them", status: "in_progress" }];
    e2e.serve([
      reply([toolUse("todo", { items: plan })]),
      reply("Planned."),
      reply("Continuing the plan."),
      reply("A new start."),
    ]);
    const { root, env } = e2e.workspace();
    let tmux = await e2e.terminal([...BUNKER, "make a plan"], { cwd: root, env });
    await waitForCount(tmux, "Planned.", 1);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    const saved = /Session saved\. Continue it with: bunker -r ([0-9a-z]{10})/.exec(tmux.screen());
    expect(saved).not.toBeNull();
    tmux.close();

    tmux = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env });
    let screen = await waitForCount(tmux, `Continuing session ${saved![1]} (1 prompt, 2 todos).`, 1);
    // The conversation so far, as it was shown: the prompt, the tool line, the answer.
    expect(screen).toContain("› make a plan\n  todo 2 items, 1 completed\nPlanned.");
    tmux.keys(["/todos", "Enter"]);
    screen = await waitForCount(tmux, "[>] #2 Summarise them", 1);
    expect(screen).toContain("[x] #1 Read the notes");
    tmux.keys(["and then?", "Enter"]);
    await waitForCount(tmux, "Continuing the plan.", 1);
    expect(transcript(2).slice(0, 2)).toEqual(["user: make a plan", "assistant: [todo]"]);
    expect(transcript(2).at(-1)).toBe("user: and then?");

    expect(tmux.screen()).toMatch(/context \d+%/);
    tmux.keys(["/clear", "Enter"]);
    screen = await waitForCount(tmux, `Conversation cleared (the old one is saved: bunker -r ${saved![1]}).`, 1);
    // The status line says at once that the new conversation holds nothing yet (the new user saw the old figure).
    expect(screen).toMatch(/context –/);
    expect(screen).not.toMatch(/context \d+%/);
    tmux.keys(["start over", "Enter"]);
    await waitForCount(tmux, "A new start.", 1);
    expect(transcript(3)).toEqual(["user: start over"]);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    const after = /Session saved\. Continue it with: bunker -r ([0-9a-z]{10})/.exec(tmux.screen());
    expect(after![1]).not.toBe(saved![1]);

    const { ANTHROPIC_API_KEY: _key, ...noKey } = env;
    const list = await runHeadless(root, noKey, ["--resume"]);
    expect(list.stdout).toContain(`${after![1]}  just now    1 prompt    start over`);
    expect(list.stdout).toContain(`${saved![1]}  just now    2 prompts   make a plan`);
  });

  test("-c replays the conversation: the last 10 turns (the earlier ones counted), each prompt, tool line and answer as shown live, escaped", async () => {
    const steps = [reply([toolUse("read_file", { path: "notes.txt" })]), reply("## Notes\n\nThe notes say **hi**.")];
    for (let i = 2; i <= 12; i++) steps.push(reply(`Answer ${i}.`));
    e2e.serve([...steps, reply("Carried on.")]);
    const { root, env } = e2e.workspace({ "notes.txt": "hi\n" });
    await runHeadless(root, env, ["-p", "turn 1: read the notes"]);
    for (let i = 2; i <= 12; i++) await runHeadless(root, env, ["-c", "-p", i === 12 ? "turn 12 \x1b[31mred\x1b[0m" : `turn ${i}`]);
    const tmux = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env, cols: 100, rows: 60 });
    const screen = await waitForCount(tmux, "Answer 12.", 1);
    expect(screen).toMatch(/Continuing session [0-9a-z]{10} \(12 prompts\)\.\n… 2 earlier turns not shown\n› turn 3\nAnswer 3\.\n/);
    expect(screen).not.toContain("turn 2\n");
    // The control characters the person typed are shown escaped, not obeyed.
    expect(screen).toContain("› turn 12 \\x1b[31mred\\x1b[0m\nAnswer 12.");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  }, 60_000);

  test("-c after a tool round shows its tool line and the answer rendered as it was", async () => {
    e2e.serve([reply([toolUse("read_file", { path: "notes.txt" })]), reply("## Notes\n\nThe notes say **hi**."), reply("More.")]);
    const { root, env } = e2e.workspace({ "notes.txt": "hi\n" });
    await runHeadless(root, env, ["-p", "read the notes"]);
    const tmux = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env, cols: 100, rows: 30 });
    const screen = await waitForCount(tmux, "The notes say hi.", 1);
    expect(screen).toContain("Continuing session");
    expect(screen).toContain("(1 prompt).\n› read the notes\n  read_file notes.txt\n");
    expect(screen).not.toContain("**hi**");
    expect(screen).not.toContain("## Notes");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("-c shows under each tool line that failed the first line of how: a command's exit code, a refused write (N12-22: they replayed as if they had gone through)", async () => {
    e2e.serve([
      reply([toolUse("run_bash", { command: "echo nope; exit 3" })]),
      reply([toolUse("write_file", { path: "out.txt", content: "x\n" })]),
      reply([toolUse("read_file", { path: "notes.txt" })]),
      reply("Done."),
      reply("More."),
    ]);
    const { root, env } = e2e.workspace({ "notes.txt": "hi\n" });
    await runHeadless(root, env, ["-p", "try things", "--allow-run"]);
    const tmux = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env, cols: 100, rows: 30 });
    const screen = await waitForCount(tmux, "Done.", 1);
    const rows = screen.slice(screen.indexOf("› try things")).split("\n");
    expect(rows[1]).toBe("  run_bash echo nope; exit 3");
    expect(rows[2]).toBe("  ✗ exit code 3");
    expect(rows[3]).toBe("  write_file out.txt");
    // Words, wrapped between them under the ✗'s text, as the live line is.
    const read = rows.indexOf("  read_file notes.txt");
    expect(rows.slice(4, read).map((r) => r.trim()).join(" ")).toStartWith("✗ writing out.txt needs approval, and bunker is not asking");
    for (const row of rows.slice(5, read)) expect(row).toMatch(/^ {4}\S/);
    // A call that went through has no line under it.
    expect(rows[read + 1]).toBe("Done.");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("-c after a session killed in its first round continues the one before, and says the later message is in no saved session (N12-18)", async () => {
    const fake = e2e.serve([reply("third answer"), { ...reply("never sent"), delayMs: 60_000 }, reply("Carried on.")]);
    const { root, env } = e2e.workspace();
    let tmux = await e2e.terminal([...BUNKER, "third"], { cwd: root, env });
    await waitForCount(tmux, "third answer", 1);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    const saved = /bunker -r ([0-9a-z]{10})/.exec(tmux.screen())![1]!;
    tmux.close();

    tmux = await e2e.terminal([...BUNKER, "go slow after crash"], { cwd: root, env });
    await until(() => fake.requests.length === 2 || null, "the second session's first request");
    const pid = Number(tmux.command(["list-panes", "-t", tmux.name, "-F", "#{pane_pid}"]).trim());
    process.kill(pid, "SIGKILL");
    tmux.close();

    tmux = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env });
    // The notice wraps between words at the terminal's width: read it as one line.
    const screen = (await waitForCount(tmux, "Continuing session", 1)).replace(/\s+/g, " ");
    expect(screen).toContain(`Continuing ${saved}, the newest saved session here: your later message "go slow after crash" (just now) is in no saved session, as no round of it finished (Up brings it back).`);
    expect(screen).toContain(`Continuing session ${saved} (1 prompt).`);
    tmux.keys(["/cost", "Enter"]);
    await waitForCount(tmux, "tokens in (", 1);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    tmux.close();
    // /cost typed since is a command, not a message: the next -c still names the message that was lost, and
    // once a message is answered in the continued session, the one after says nothing of it.
    tmux = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env });
    await waitForCount(tmux, "Continuing session", 1);
    expect(tmux.screen()).toContain('your later message "go slow after crash"');
    tmux.keys(["go on", "Enter"]);
    await waitForCount(tmux, "Carried on.", 1);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    tmux.close();
    tmux = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env });
    await waitForCount(tmux, "Continuing session", 1);
    expect(tmux.screen()).not.toContain("is in no saved session");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("a session continued by a second bunker meanwhile: the first keeps its turn as a new session, and says so", async () => {
    e2e.serve([reply("A one."), reply("B one."), reply("A two.")]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "first from A"], { cwd: root, env });
    await waitForCount(tmux, "A one.", 1);
    const b = await runHeadless(root, env, ["-c", "-p", "from B", "--output-format", "json"]);
    const shared = (JSON.parse(b.stdout) as { session_id: string }).session_id;
    tmux.keys(["second from A", "Enter"]);
    // The notice wraps between words at the terminal's width: read it as one line.
    const screen = (await waitForCount(tmux, "A two.", 1)).replace(/\s+/g, " ");
    const forked = /this conversation is now saved as session ([0-9a-z]{10})/.exec(screen);
    expect(screen).toContain(`Session ${shared} was also continued elsewhere`);
    expect(forked).not.toBeNull();
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    const { ANTHROPIC_API_KEY: _key, ...noKey } = env;
    const list = (await runHeadless(root, noKey, ["--resume"])).stdout;
    expect(list).toContain(`${shared}  just now    2 prompts   first from A`);
    expect(list).toContain(`${forked![1]}  just now    2 prompts   first from A`);
    // B's turn survived in the shared session.
    expect(transcript(2)).toEqual(["user: first from A", "assistant: A one.", "user: second from A"]);
  });

  test("bare --resume on a terminal is a picker: newest first, named by first prompt and last reply; Enter continues the one picked", async () => {
    const fake = e2e.serve([reply("Alpha is done."), reply("Beta is done."), reply("Back in alpha.")]);
    const { root, env } = e2e.workspace();
    await runHeadless(root, env, ["-p", "alpha task"]);
    await Bun.sleep(20);
    await runHeadless(root, env, ["-p", "beta task"]);
    const tmux = await e2e.terminal([...BUNKER, "--resume"], { cwd: root, env, cols: 100 });
    const list = await tmux.waitFor("Enter to pick");
    // Each row: its age, how many prompts, the first prompt and the last reply.
    expect(list).toMatch(/› just now +1 prompt +beta task +→ Beta is done\.\n +just now +1 prompt +alpha task +→ Alpha is done\./);
    tmux.keys(["Down"]);
    await tmux.waitFor(/› just now +1 prompt +alpha task/);
    tmux.keys(["Enter"]);
    const screen = await tmux.waitFor("› alpha task\nAlpha is done.");
    expect(screen).toMatch(/Continuing session [0-9a-z]{10} \(1 prompt\)/);
    tmux.keys(["more", "Enter"]);
    await tmux.waitFor("Back in alpha.");
    expect(transcript(2)).toEqual(["user: alpha task", "assistant: Alpha is done.", "user: more"]);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("the picker shows the last reply as plain text, and leaves the choice on one row cut at the width, not wrapped mid-word (N12-02)", async () => {
    e2e.serve([reply("Done: **ready**, `ok`."), reply("More.")]);
    const { root, env } = e2e.workspace();
    await runHeadless(root, env, ["-p", "ship it"]);
    const tmux = await e2e.terminal([...BUNKER, "--resume"], { cwd: root, env, cols: 60, rows: 20 });
    const list = await tmux.waitFor("Enter to pick");
    expect(list).toMatch(/› just now +1 prompt +ship it  → Done: ready, ok\.\n/);
    tmux.keys(["Enter"]);
    const screen = await tmux.waitFor(/Continuing session [0-9a-z]{10} \(1 prompt\)/);
    // Joined (-J): a row the terminal wrapped would read back wider than the screen.
    const chosen = screen.split("\n").find((r) => r.startsWith("Resume which session?"))!;
    expect(chosen).toStartWith("Resume which session? just now    1 prompt    ship it");
    expect(chosen).toEndWith("…");
    expect(Bun.stringWidth(chosen)).toBeLessThan(60);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("the picker names a session whose last reply ends in a code block by its last words outside the code (N11-14)", async () => {
    e2e.serve([reply("The loader reads the file twice. Run this to check:\n\n```sh\nbun test tests/loader.test.ts --watch\n```\n")]);
    const { root, env } = e2e.workspace();
    await runHeadless(root, env, ["-p", "why is it slow"]);
    const tmux = await e2e.terminal([...BUNKER, "--resume"], { cwd: root, env, cols: 120, rows: 20 });
    const screen = await tmux.waitFor("Enter to pick");
    expect(screen).toMatch(/› just now +1 prompt +why is it slow  → The loader reads the file twice\. Run this to check:\n/);
    expect(screen).not.toContain("--watch");
    tmux.keys(["Escape"]);
  });

  test("the picker is drawn again when the terminal is resized: each session on one row cut at the new width, the title once", async () => {
    e2e.serve([reply("First done."), reply("Second done.")]);
    const { root, env } = e2e.workspace();
    const long = (n: string) => `a rather long ${n} prompt that goes on well past the edge of a narrow terminal window`;
    await runHeadless(root, env, ["-p", long("first")]);
    await Bun.sleep(20);
    await runHeadless(root, env, ["-p", long("second")]);
    const tmux = await e2e.terminal([...BUNKER, "--resume"], { cwd: root, env, cols: 120, rows: 20 });
    await tmux.waitFor("Enter to pick");
    tmux.resize(50, 20);
    // Drawn for 50 columns: every row fits, the two sessions are cut (…) rather than wrapped onto a second row.
    const rows = await until(() => {
      const shown = tmux.visible().split("\n").filter((l) => l.trim() !== "");
      return shown.length === 4 && shown.every((l) => Bun.stringWidth(l) < 50) ? shown : null;
    }, "the picker drawn for 50 columns");
    expect(rows[0]).toBe("Resume which session?");
    expect(rows[1]).toMatch(/^› just now +1 prompt +a rather long second .*…$/);
    expect(rows[2]).toMatch(/^ {2}just now +1 prompt +a rather long first .*…$/);
    expect(rows[3]).toStartWith("↑/↓ to move");
    tmux.keys(["Down", "Enter"]);
    await tmux.waitFor("\nFirst done.");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("-c on a terminal shows the replies rendered as they streamed: no heading marks, no asterisks, no fences", async () => {
    e2e.serve([reply("## Summary\n\nThe **config** loader is fixed.\n\n```sh\nbun test\n```\n")]);
    const { root, env } = e2e.workspace();
    await runHeadless(root, env, ["-p", "fix it"]);
    const tmux = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env, cols: 80 });
    const screen = await tmux.waitFor("› fix it");
    const after = await tmux.waitFor(/The config loader is fixed\./);
    expect(after).toContain("Summary");
    expect(after).toContain("bun test");
    for (const raw of ["## Summary", "**config**", "```"]) expect(after).not.toContain(raw);
    expect(screen).toMatch(/Continuing session [0-9a-z]{10} \(1 prompt\)/);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("after -c the status line and /cost count the whole session, earlier runs included, and agree; the total is saved for the next -c", async () => {
    const first = { input_tokens: 1000, output_tokens: 40 };
    const second = { input_tokens: 2000, output_tokens: 60 };
    e2e.serve([reply("First answer.", "end_turn", { usage: first }), reply("Second answer.", "end_turn", { usage: second })]);
    const { root, env } = e2e.workspace();
    expect((await runHeadless(root, env, ["-p", "first"])).code).toBe(0);
    /** The status line at rest, and what /cost prints, as [tokens in, tokens out, cost]. */
    const figures = async (t: Awaited<ReturnType<typeof e2e.terminal>>, n: number) => {
      const screen = await waitForCount(t, " tokens in (", n);
      const cost = [...screen.matchAll(/(\d+) tokens in \(\d+ from cache\), (\d+) out, (\$\d+\.\d{4})/g)].at(-1)!.slice(1, 4);
      const status = t.visible().trim().split("\n").at(-1)!;
      const shown = /(\d+) in \(\d+% cached\) · (\d+) out · (\$\d+\.\d{4})/.exec(status)!.slice(1, 4);
      return { cost, shown };
    };
    let t = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env, cols: 120 });
    await t.waitFor("Continuing session");
    t.keys(["/cost", "Enter"]);
    // Before any turn here: the earlier run's 1000 in, 40 out ($0.0036), in both.
    expect(await figures(t, 1)).toEqual({ cost: ["1000", "40", "$0.0036"], shown: ["1000", "40", "$0.0036"] });
    t.keys(["again", "Enter"]);
    await t.waitFor("Second answer.");
    t.keys(["/cost", "Enter"]);
    expect(await figures(t, 2)).toEqual({ cost: ["3000", "100", "$0.0105"], shown: ["3000", "100", "$0.0105"] });
    expect(await quitWithCtrlD(t)).not.toBeNull();
    t.close();
    // The next -c starts from the whole: both runs.
    t = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env, cols: 120 });
    await t.waitFor("Continuing session");
    t.keys(["/cost", "Enter"]);
    expect(await figures(t, 1)).toEqual({ cost: ["3000", "100", "$0.0105"], shown: ["3000", "100", "$0.0105"] });
    expect(await quitWithCtrlD(t)).not.toBeNull();
  }, 45_000);

  test("after -c the status line shows how full the context was at the session's last request, before any new one", async () => {
    // 59,000 in + 1,000 out of a 200,000-token window: 30%.
    e2e.serve([reply("A long answer.", "end_turn", { usage: { input_tokens: 59_000, output_tokens: 1000 } })]);
    const { root, env } = e2e.workspace();
    expect((await runHeadless(root, env, ["-p", "first"])).code).toBe(0);
    const t = await e2e.terminal([...BUNKER, "-c"], { cwd: root, env, cols: 120 });
    await t.waitFor("Continuing session");
    const screen = await t.waitFor("context 30%");
    expect(screen).not.toContain("context –");
    expect(e2e.fake.requests).toHaveLength(1);
    expect(await quitWithCtrlD(t)).not.toBeNull();
  });

  test("Escape in the picker starts nothing and says so (exit 0); Ctrl+C says it was interrupted (exit 130)", async () => {
    const fake = e2e.serve([reply("Done.")]);
    const { root, env } = e2e.workspace();
    await runHeadless(root, env, ["-p", "a task"]);
    for (const [key, said, code] of [["Escape", "No session chosen; nothing started (bunker starts a new session, bunker -c continues the newest).", 0], ["C-c", "Interrupted; no session chosen.", 130]] as const) {
      // The shell prints the status (tmux's own report of it comes late on a loaded machine).
      const tmux = await e2e.terminal(["sh", "-c", `${BUNKER.map((a) => `'${a}'`).join(" ")} --resume; echo "exit status $?"`], { cwd: root, env });
      await tmux.waitFor("Enter to pick");
      tmux.keys([key]);
      const screen = await tmux.waitFor(`exit status ${code}`);
      expect(screen).toContain(`${said}\nexit status ${code}`);
      expect(screen).not.toContain("Enter to pick");
    }
    // At 40 columns the line is fitted between words (the terminal's own wrap cut "(bunk" / "er starts"; new user).
    const narrow = await e2e.terminal(["sh", "-c", `${BUNKER.map((a) => `'${a}'`).join(" ")} --resume; echo "exit status $?"`], { cwd: root, env, cols: 40 });
    await narrow.waitFor("Enter to pick");
    narrow.keys(["Escape"]);
    const screen = await narrow.waitFor("exit status 0");
    const said = "No session chosen; nothing started (bunker starts a new session, bunker -c continues the newest).";
    const rows = screen.slice(screen.lastIndexOf("No session chosen"), screen.indexOf("exit status 0")).trimEnd().split("\n");
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.join(" ")).toBe(said);
    expect(fake.requests).toHaveLength(1);
  });

  test("the Up arrow brings back what was typed in this workspace in an earlier session", async () => {
    const fake = e2e.serve([reply("First."), reply("Again.")]);
    const { root, env } = e2e.workspace();
    let tmux = await e2e.terminal([...BUNKER], { cwd: root, env });
    await tmux.waitFor("/help for commands");
    await tmux.waitFor("›");
    tmux.keys(["remember this one", "Enter"]);
    await tmux.waitFor("First.");
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    tmux.close();
    tmux = await e2e.terminal([...BUNKER], { cwd: root, env });
    await tmux.waitFor("/help for commands");
    await tmux.waitFor("›");
    tmux.keys(["Up"]);
    await tmux.waitFor("› remember this one");
    tmux.keys(["Enter"]);
    await tmux.waitFor("Again.");
    expect(transcript(1)).toEqual(["user: remember this one"]);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });
});
