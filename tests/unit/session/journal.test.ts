// A new headless session's journal (src/session/journal.ts) and how the store
// folds it in (SessionStore.open): what was written comes back, a line cut
// short by a crash is ignored without losing the lines before it, a fold is
// done once however often or by however many bunkers at once, a running
// writer's journal is kept until it has exited, and a session continued
// elsewhere meanwhile is never overwritten.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { selfId } from "../../../src/fs/process-id.ts";
import { JournalWriter, KEEP_UNREAD_MS, pendingDir, readJournal, takeJournalNotices, unreadName, unreadSince, type JournalSnapshot } from "../../../src/session/journal.ts";
import { SessionStore } from "../../../src/session/store.ts";
import { tempDir } from "../../support/context.ts";

const root = "/work/project";
const meta = (id: string) => ({ id, root, model: "claude-test" });
const asked: MessageParam = { role: "user", content: "read a.txt" };
const call: MessageParam = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.txt" } }] };
const result: MessageParam = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "1\thello" }] };
const answer: MessageParam = { role: "assistant", content: [{ type: "text", text: "It says hello." }] };
const round: JournalSnapshot = { messages: [asked, call, result], todos: [], running: "1:1" };
const done: JournalSnapshot = { messages: [asked, call, result, answer], todos: [{ id: "1", text: "read", status: "completed" }], running: null, usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, contextTokens: 15 };

/** A writer that has exited (no such pid). */
const EXITED = "999999999:1";

function sessionsPath(): string {
  return join(tempDir("bunker-journal-"), "state", "bunker", "sessions.db");
}

/** A journal of session `id` as a run by `writer` leaves it after `snaps`. */
async function journal(path: string, id: string, writer: string, ...snaps: JournalSnapshot[]): Promise<string> {
  const w = JournalWriter.create(path, meta(id), writer);
  for (const s of snaps) w.append(s);
  await w.finish();
  return w.path;
}

describe("the journal", () => {
  test("read back, it holds the session as its last line left it, meta, usage and todos included", async () => {
    const file = await journal(sessionsPath(), "aaaaaaaaaa", EXITED, round, done);
    expect(readJournal(file)).toMatchObject({ id: "aaaaaaaaaa", root, model: "claude-test", seq: 2, messages: done.messages, todos: done.todos, running: null, usage: done.usage, contextTokens: 15 });
  });

  test("each line carries only the messages from the first that changed", async () => {
    const file = await journal(sessionsPath(), "aaaaaaaaaa", EXITED, round, done);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as { from: number; add: unknown[] });
    expect(lines.map((l) => [l.from, l.add.length])).toEqual([[0, 3], [3, 1]]);
  });

  test("a line cut short (a crash mid-write), damaged or out of sequence is ignored, with every line after it; the lines before it stand", async () => {
    const file = await journal(sessionsPath(), "aaaaaaaaaa", EXITED, round, done);
    const whole = readFileSync(file, "utf8");
    const [first, second] = whole.split("\n");
    // Cut anywhere in the last line, even just before its newline: that line does not count.
    for (const cut of [1, 10, second!.length]) {
      writeFileSync(file, `${first}\n${second!.slice(0, cut)}`);
      expect(readJournal(file)).toMatchObject({ seq: 1, messages: round.messages, running: "1:1" });
    }
    // Zeros where a power cut left the end of the file unwritten.
    writeFileSync(file, `${first}\n${"\0".repeat(second!.length)}\n`);
    expect(readJournal(file)).toMatchObject({ seq: 1, messages: round.messages });
    // The first line again after the second: out of sequence, so it and anything after it are not read.
    writeFileSync(file, `${first}\n${second}\n${first}\n${second}\n`);
    expect(readJournal(file)).toMatchObject({ seq: 2, messages: done.messages });
    writeFileSync(file, `${first!.replace("{", "[")}\n${second}\n`);
    expect(readJournal(file)).toBeNull();
    truncateSync(file, 0);
    expect(readJournal(file)).toBeNull();
  });

  test("the journal and its folder are the owner's only", async () => {
    const path = sessionsPath();
    const file = await journal(path, "aaaaaaaaaa", EXITED, round);
    const { statSync } = await import("node:fs");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(pendingDir(path)).mode & 0o777).toBe(0o700);
  });

  test("a journal with nothing in it is removed when the run ends", async () => {
    const path = sessionsPath();
    await journal(path, "aaaaaaaaaa", EXITED);
    expect(readdirSync(pendingDir(path))).toEqual([]);
  });
});

describe("folding journals into the store", () => {
  test("opening the store takes in a finished run's journal and removes it; opening it again changes nothing", async () => {
    const path = sessionsPath();
    await journal(path, "aaaaaaaaaa", EXITED, round, done);
    const s = SessionStore.open(path);
    expect(s.latest(root)).toMatchObject({ id: "aaaaaaaaaa", messages: done.messages, todos: done.todos, running: null, usage: done.usage, contextTokens: 15, version: 1, title: "read a.txt" });
    expect(readdirSync(pendingDir(path))).toEqual([]);
    s.close();
    const again = SessionStore.open(path);
    expect(again.list(root).map((x) => [x.id, x.version])).toEqual([["aaaaaaaaaa", 1]]);
    again.close();
  });

  test("a fold is done once: a journal whose removal was lost (a power cut) is not taken in twice", async () => {
    const path = sessionsPath();
    const file = await journal(path, "aaaaaaaaaa", EXITED, round, done);
    const bytes = readFileSync(file);
    SessionStore.open(path).close();
    writeFileSync(file, bytes);
    const s = SessionStore.open(path);
    expect(s.list(root).map((x) => [x.id, x.version])).toEqual([["aaaaaaaaaa", 1]]);
    expect(existsSync(file)).toBe(false);
    s.close();
  });

  test("a running writer's journal is taken in and kept; what it adds later comes in at the next opening; once it has exited the file goes", async () => {
    const path = sessionsPath();
    const w = JournalWriter.create(path, meta("bbbbbbbbbb"), selfId());
    w.append(round);
    const first = SessionStore.open(path);
    expect(first.find("bbbbbbbbbb")).toMatchObject({ messages: round.messages, running: "1:1", version: 1 });
    first.close();
    expect(existsSync(w.path)).toBe(true);
    w.append(done);
    await w.finish();
    const second = SessionStore.open(path);
    expect(second.find("bbbbbbbbbb")).toMatchObject({ messages: done.messages, running: null, version: 2 });
    second.close();
    expect(existsSync(w.path)).toBe(true);
  });

  test("a session continued elsewhere after a fold is not overwritten: what the journal adds later is kept as a new session", async () => {
    const path = sessionsPath();
    const w = JournalWriter.create(path, meta("cccccccccc"), selfId());
    w.append(round);
    const other = SessionStore.open(path);
    const continued = [...round.messages, { role: "assistant" as const, content: [{ type: "text" as const, text: "from the other bunker" }] }];
    expect(other.save("cccccccccc", { root, model: "claude-test" }, { messages: continued, todos: [] }, 1)).toBe(2);
    other.close();
    w.append(done);
    await w.finish();
    const s = SessionStore.open(path);
    expect(s.find("cccccccccc").messages).toEqual(continued);
    const forked = s.list(root).filter((x) => x.id !== "cccccccccc");
    expect(forked).toHaveLength(1);
    expect(s.find(forked[0]!.id).messages).toEqual(done.messages);
    s.close();
  });

  test("a journal with no whole line is removed once its writer has exited, and kept while it runs", async () => {
    const path = sessionsPath();
    const gone = JournalWriter.create(path, meta("dddddddddd"), EXITED);
    const running = JournalWriter.create(path, meta("eeeeeeeeee"), selfId());
    writeFileSync(gone.path, '0000 {"seq":1');
    SessionStore.open(path).close();
    expect(existsSync(gone.path)).toBe(false);
    expect(existsSync(running.path)).toBe(true);
    await running.finish();
  });

  test("a journal whose lines cannot be read (damaged, or a newer bunker's) is set aside under a dated name, said once, and neither folded nor counted again", async () => {
    const path = sessionsPath();
    const file = await journal(path, "hhhhhhhhhh", EXITED, round);
    writeFileSync(file, '{"v":9,"something":"newer"}\n');
    takeJournalNotices();
    const before = Date.now();
    const s = SessionStore.open(path);
    expect(s.count(root)).toBe(0);
    s.close();
    const [kept] = readdirSync(pendingDir(path));
    expect(kept).toStartWith(`${file.split("/").at(-1)}.unread-`);
    expect(unreadSince(kept!)).toBeGreaterThanOrEqual(before);
    // Nothing of it is lost: the same bytes, under the new name.
    expect(readFileSync(join(pendingDir(path), kept!), "utf8")).toBe('{"v":9,"something":"newer"}\n');
    expect(takeJournalNotices()).toEqual([
      `A saved headless session could not be read (its lines are damaged, or written by a newer bunker): it is kept as ${join(pendingDir(path), kept!)} for 30 days, then removed.`,
    ]);
    // Said once: the next opening finds nothing to say, and a new journal does not count it as waiting.
    SessionStore.open(path).close();
    expect(takeJournalNotices()).toEqual([]);
    const next = JournalWriter.create(path, meta("iiiiiiiiii"), EXITED);
    expect(next.waiting).toBe(1);
    await next.finish();
  });

  test.skipIf(!existsSync("/usr/bin/python3"))("a journal that cannot be opened this time (EAGAIN: another program holds a lease on it) is neither set aside nor removed, and is folded at a later opening", async () => {
    const path = sessionsPath();
    const file = await journal(path, "oooooooooo", EXITED, round, done);
    // A write lease (F_SETLEASE, as a file server takes one): an open that will not wait gets EAGAIN until it is let go.
    const lease = "import fcntl, os, signal, sys, time\nsignal.signal(signal.SIGIO, signal.SIG_IGN)\nfd = os.open(sys.argv[1], os.O_RDONLY)\nfcntl.fcntl(fd, 1024, fcntl.F_WRLCK)\nprint('leased', flush=True)\ntime.sleep(30)";
    const holder = Bun.spawn(["/usr/bin/python3", "-c", lease, file], { stdout: "pipe", stderr: "inherit" });
    try {
      const reader = holder.stdout.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toStartWith("leased");
      takeJournalNotices();
      SessionStore.open(path).close();
      // Nothing said, the journal where it was, whole.
      expect(takeJournalNotices()).toEqual([]);
      expect(readdirSync(pendingDir(path))).toEqual([file.split("/").at(-1)!]);
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
    // Let go: the next opening folds it.
    const s = SessionStore.open(path);
    expect(s.count(root)).toBe(1);
    s.close();
    expect(readdirSync(pendingDir(path))).toEqual([]);
  });

  test("one kept aside longer than 30 days is removed at an opening; a younger one stays", () => {
    const path = sessionsPath();
    mkdirSync(pendingDir(path), { recursive: true });
    const old = unreadName("jjjjjjjjjj.1-2.jsonl", Date.now() - KEEP_UNREAD_MS - 60_000);
    const young = unreadName("kkkkkkkkkk.1-2.jsonl", Date.now() - KEEP_UNREAD_MS + 60_000);
    for (const n of [old, young]) writeFileSync(join(pendingDir(path), n), "x\n");
    SessionStore.open(path).close();
    expect(readdirSync(pendingDir(path))).toEqual([young]);
  });

  test("named as a journal, a FIFO, a link or a folder is never opened blocking, followed or folded: set aside, said once", async () => {
    const path = sessionsPath();
    const dir = pendingDir(path);
    mkdirSync(dir, { recursive: true });
    const secret = join(dir, "..", "secret.txt");
    writeFileSync(secret, "not a journal\n");
    expect(Bun.spawnSync(["mkfifo", join(dir, "llllllllll.999999999-1.jsonl")]).exitCode).toBe(0);
    symlinkSync(secret, join(dir, "mmmmmmmmmm.999999999-1.jsonl"));
    mkdirSync(join(dir, "nnnnnnnnnn.999999999-1.jsonl"));
    takeJournalNotices();
    SessionStore.open(path).close();
    const names = readdirSync(dir).sort();
    expect(names).toHaveLength(3);
    for (const n of names) expect(unreadSince(n)).not.toBeNull();
    const said = takeJournalNotices().sort();
    expect(said).toHaveLength(3);
    expect(said[0]).toContain("(llllllllll.999999999-1.jsonl is a named pipe (FIFO), not a regular file; bunker did not read it)");
    expect(said[1]).toContain("(mmmmmmmmmm.999999999-1.jsonl is a symbolic link; bunker did not follow it or read it)");
    expect(said[2]).toContain("(nnnnnnnnnn.999999999-1.jsonl is a directory, not a file; bunker did not read it)");
    expect(readFileSync(secret, "utf8")).toBe("not a journal\n");
  });

  test("two bunkers folding the same journals at once: every session once, whole", async () => {
    const path = sessionsPath();
    const ids = Array.from({ length: 20 }, (_, i) => `f${String(i).padStart(9, "0")}`);
    for (const id of ids) await journal(path, id, EXITED, round, done);
    SessionStore.open(path).close(); // the schema, made before the race
    for (const id of ids) await journal(path, `g${id.slice(1)}`, EXITED, round, done);
    const storeModule = join(import.meta.dir, "../../../src/session/store.ts");
    const code = `const { SessionStore } = await import(${JSON.stringify(storeModule)}); SessionStore.open(${JSON.stringify(path)}).close();`;
    const runs = [1, 2, 3].map(() => Bun.spawn([process.execPath, "-e", code], { stderr: "pipe" }));
    for (const r of runs) {
      expect(await r.exited).toBe(0);
      expect(await new Response(r.stderr).text()).toBe("");
    }
    const s = SessionStore.open(path);
    expect(s.count(root)).toBe(40);
    for (const x of s.list(root, 100)) expect([x.version, s.find(x.id).messages]).toEqual([1, done.messages]);
    expect(readdirSync(pendingDir(path))).toEqual([]);
    s.close();
  });
});
