// The saved-session store: what is saved comes back whole, ids and prefixes
// find the right session, a damaged or newer store is an error that says so,
// and the file is private to its owner.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { History } from "../../../src/agent/history.ts";
import { defaultSessionsPath } from "../../../src/session/paths.ts";
import { SessionRecorder } from "../../../src/session/recorder.ts";
import { newSessionId, plainMarkdown, SessionError, SessionStore } from "../../../src/session/store.ts";
import { tempDir } from "../../support/context.ts";

const meta = { root: "/work/project", model: "claude-test" };
const conversation: MessageParam[] = [
  { role: "user", content: [{ type: "text", text: "why does the parser fail?\nsecond line" }] },
  { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "src/parse.ts" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "1\texport const x = 1;" }] },
  { role: "assistant", content: [{ type: "text", text: "Because x is 1." }] },
];
const todos = [{ id: "1", text: "Read the parser", status: "completed" as const }];

/** Saves as a single bunker would: over whatever version is there now. */
function put(s: SessionStore, id: string, m: typeof meta, snap: { messages: MessageParam[]; todos: typeof todos }): number | "conflict" {
  let version: number | null = null;
  try {
    version = s.find(id).version;
  } catch {
    // a new session
  }
  return s.save(id, m, snap, version);
}

function store(): { store: SessionStore; path: string } {
  const path = join(tempDir("bunker-store-"), "state", "bunker", "sessions.db");
  return { store: SessionStore.open(path), path };
}

describe("SessionStore", () => {
  test("a saved session comes back whole, titled by the first line the person typed", () => {
    const { store: s } = store();
    put(s, "abcd1234ef", meta, { messages: conversation, todos });
    const back = s.find("abcd1234ef");
    expect(back.messages).toEqual(conversation);
    expect(back.todos).toEqual(todos);
    expect(back.title).toBe("why does the parser fail?");
    expect(back.root).toBe(meta.root);
    expect(back.messageCount).toBe(4);
  });

  test("saving again replaces the conversation; an empty one is not saved", () => {
    const { store: s } = store();
    put(s, "abcd1234ef", meta, { messages: conversation.slice(0, 1), todos: [] });
    put(s, "abcd1234ef", meta, { messages: conversation, todos });
    expect(s.find("abcd").messages).toEqual(conversation);
    new SessionRecorder(s, meta, () => {}, "zzzz0000zz").save({ messages: [], todos: [] });
    expect(() => s.find("zzzz0000zz")).toThrow("no saved session zzzz0000zz");
  });

  test("a saved conversation taken back to nothing (/rewind 1 conversation) is saved empty, so -c does not bring the turns back", () => {
    const { store: s } = store();
    const r = new SessionRecorder(s, meta, () => {}, "rewound001");
    r.save({ messages: conversation, todos });
    r.save({ messages: [], todos: [] });
    expect(s.find("rewound001").messages).toEqual([]);
    expect(s.find("rewound001").messageCount).toBe(0);
  });

  test("a save over a version another bunker has replaced is a conflict and writes nothing", () => {
    const { store: s } = store();
    expect(s.save("abcd1234ef", meta, { messages: conversation.slice(0, 1), todos: [] }, null)).toBe(1);
    expect(s.save("abcd1234ef", meta, { messages: conversation.slice(0, 2), todos: [] }, 1)).toBe(2);
    // The other bunker still thinks it is at version 1.
    expect(s.save("abcd1234ef", meta, { messages: conversation, todos: [] }, 1)).toBe("conflict");
    expect(s.find("abcd1234ef").messages).toEqual(conversation.slice(0, 2));
    expect(s.save("abcd1234ef", meta, { messages: conversation, todos: [] }, null)).toBe("conflict");
  });

  test("latest and list are per workspace, newest first", async () => {
    const { store: s } = store();
    put(s, "aaaa000001", meta, { messages: conversation, todos: [] });
    await Bun.sleep(5);
    put(s, "bbbb000002", { ...meta, root: "/elsewhere" }, { messages: conversation, todos: [] });
    await Bun.sleep(5);
    put(s, "cccc000003", meta, { messages: [{ role: "user", content: "newer" }], todos: [] });
    expect(s.latest(meta.root)?.id).toBe("cccc000003");
    expect(s.latest("/nowhere")).toBeNull();
    expect(s.list(meta.root).map((x) => x.id)).toEqual(["cccc000003", "aaaa000001"]);
    // Using an older session makes it the newest.
    await Bun.sleep(5);
    put(s, "aaaa000001", meta, { messages: conversation, todos: [] });
    expect(s.latest(meta.root)?.id).toBe("aaaa000001");
  });

  test("a prefix finds one session; an ambiguous, short or odd one is refused with the reason", () => {
    const { store: s } = store();
    put(s, "abcd111111", meta, { messages: conversation, todos: [] });
    put(s, "abcd222222", meta, { messages: conversation, todos: [] });
    expect(s.find("ABCD1").id).toBe("abcd111111");
    expect(() => s.find("abcd")).toThrow("abcd matches more than one session: give more of the id");
    expect(() => s.find("ab")).toThrow('give at least 4 characters of the session id, not "ab"');
    expect(() => s.find("abcd%")).toThrow("is not a session id");
    const err = (() => {
      try {
        s.find("nope9999");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SessionError);
    expect((err as SessionError).exitCode).toBe(2);
  });

  test("the file is readable by its owner only", () => {
    const { path } = store();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
  });

  test("opened to write (startLog), the write-ahead log is started at once and the store is as it was", () => {
    const { store: s, path } = store();
    put(s, "aaaaaaaaaa", meta, { messages: conversation, todos });
    s.close();
    // Closed by its last user, the store's log is left empty (kept for the next run); opened plainly, it stays empty until a write.
    expect(statSync(path + "-wal").size).toBe(0);
    const plain = SessionStore.open(path);
    expect(statSync(path + "-wal").size).toBe(0);
    plain.close();
    const started = SessionStore.open(path, { startLog: true });
    expect(statSync(path + "-wal").size).toBeGreaterThan(0);
    expect(started.find("aaaaaaaaaa").messages).toEqual(conversation);
    started.close();
    const db = new Database(path, { readonly: true });
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: 2 });
    db.close();
  });

  test("a bunker that exits without closing its store (a headless run) leaves every save in the store file itself, the log empty", async () => {
    // No connection in this process: each run's is the store's last, as a headless run's is.
    const path = join(tempDir("bunker-store-exit-"), "state", "bunker", "sessions.db");
    const storeModule = join(import.meta.dir, "../../../src/session/store.ts");
    // Two runs, as two headless turns would: open beside the request, save twice, exit.
    for (const id of ["aaaaaaaaaa", "bbbbbbbbbb"]) {
      const code = `const { SessionStore } = await import(${JSON.stringify(storeModule)});
        const s = SessionStore.open(${JSON.stringify(path)}, { startLog: true });
        const messages = ${JSON.stringify(conversation)};
        s.save("${id}", { root: "/w", model: "m" }, { messages: messages.slice(0, 2), todos: [] }, null);
        s.save("${id}", { root: "/w", model: "m" }, { messages, todos: [] }, 1);
        process.exit(0);`;
      const run = Bun.spawnSync([process.execPath, "-e", code], { stderr: "pipe" });
      expect(run.stderr.toString()).toBe("");
      expect(run.exitCode).toBe(0);
      expect(statSync(path + "-wal").size).toBe(0);
    }
    // The store file alone, without its log and index, has both sessions whole.
    const alone = join(tempDir("bunker-store-alone-"), "sessions.db");
    writeFileSync(alone, readFileSync(path));
    const copy = SessionStore.open(alone);
    expect(copy.find("aaaaaaaaaa").messages).toEqual(conversation);
    expect(copy.find("bbbbbbbbbb").messages).toEqual(conversation);
    copy.close();
  });

  test("a store another bunker is making at this moment (its first write still open) is waited for, not refused as locked", async () => {
    // A headless run writes a journal, not the store: the first two readers after it (two `bunker -c` at once) make the store together.
    const path = join(tempDir("bunker-store-new-"), "sessions.db");
    const holder = Bun.spawn([process.execPath, "-e", `
      const { Database } = require("bun:sqlite");
      const db = new Database(${JSON.stringify(path)}, { create: true });
      db.exec("BEGIN; CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1);");
      console.log("held");
      setTimeout(() => { db.exec("COMMIT"); process.exit(0); }, 300);
    `], { stdout: "pipe" });
    await holder.stdout.getReader().read();
    const s = SessionStore.open(path);
    expect(s.list(meta.root)).toEqual([]);
    s.close();
    expect(await holder.exited).toBe(0);
  });

  test("a damaged row is an error naming the session, never half a conversation", () => {
    const { store: s, path } = store();
    put(s, "abcd111111", meta, { messages: conversation, todos: [] });
    const db = new Database(path);
    db.run("UPDATE sessions SET messages = '[{\"role\":\"user\",\"content\":' WHERE id = 'abcd111111'");
    expect(() => s.find("abcd111111")).toThrow("session abcd111111 is damaged (its saved conversation is not valid JSON)");
    db.run("UPDATE sessions SET messages = '[{\"role\":\"system\",\"content\":\"x\"}]' WHERE id = 'abcd111111'");
    expect(() => s.latest(meta.root)).toThrow("is not a list of messages");
    db.close();
  });

  test("a store from a newer bunker, or a file that is not a database, is refused with the path", () => {
    const { path } = store();
    const db = new Database(path);
    db.run("PRAGMA user_version = 99");
    db.close();
    expect(() => SessionStore.open(path)).toThrow(`cannot open the session store ${path}: it was written by a newer bunker (schema 99); update bunker`);
    const junk = join(tempDir(), "junk.db");
    writeFileSync(junk, "this is not sqlite, just text long enough to have a header.......................................");
    expect(() => SessionStore.open(junk)).toThrow(`cannot open the session store ${junk}`);
  });
});

test("session ids are 10 characters, distinct, and free of look-alike letters", () => {
  const ids = new Set(Array.from({ length: 1000 }, newSessionId));
  expect(ids.size).toBe(1000);
  for (const id of ids) expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{10}$/);
});

test("the store lives in XDG_STATE_HOME, else ~/.local/state", () => {
  expect(defaultSessionsPath({ XDG_STATE_HOME: "/s", HOME: "/h" })).toBe("/s/bunker/sessions.db");
  expect(defaultSessionsPath({ HOME: "/h" })).toBe("/h/.local/state/bunker/sessions.db");
});

test("two recorders on one session: the second to save keeps its conversation as a new session, and says so", () => {
  const { store: s } = store();
  const warnings: string[] = [];
  const a = new SessionRecorder(s, meta, (w) => warnings.push(w), "samesess01", null);
  a.save({ messages: conversation.slice(0, 2), todos: [] });
  const loaded = s.find("samesess01");
  const b = new SessionRecorder(s, meta, (w) => warnings.push(w), loaded.id, loaded.version);
  const c = new SessionRecorder(s, meta, (w) => warnings.push(w), loaded.id, loaded.version);
  b.save({ messages: [...conversation.slice(0, 3), { role: "assistant", content: "from b" }], todos: [] });
  c.save({ messages: [...conversation.slice(0, 3), { role: "assistant", content: "from c" }], todos: [] });
  expect(b.id).toBe("samesess01");
  expect(c.id).not.toBe("samesess01");
  expect(s.find("samesess01").messages.at(-1)).toEqual({ role: "assistant", content: "from b" });
  expect(s.find(c.id).messages.at(-1)).toEqual({ role: "assistant", content: "from c" });
  expect(warnings).toEqual([`Session samesess01 was also continued elsewhere; so nothing is lost, this conversation is now saved as session ${c.id}.`]);
  // c goes on saving under its new id without further warnings.
  c.save({ messages: [...conversation.slice(0, 3), { role: "assistant", content: "from c, later" }], todos: [] });
  expect(s.find(c.id).messages.at(-1)).toEqual({ role: "assistant", content: "from c, later" });
  expect(warnings).toHaveLength(1);
});

test("a recorder whose store fails warns once and goes on without saving", () => {
  const { store: s } = store();
  const warnings: string[] = [];
  const r = new SessionRecorder(s, meta, (w) => warnings.push(w));
  s.close();
  r.save({ messages: conversation, todos: [] });
  r.save({ messages: conversation, todos: [] });
  expect(warnings.length).toBe(1);
  expect(warnings[0]).toStartWith("This session is no longer being saved:");
  expect(r.saving).toBe(false);
});

describe("History.load", () => {
  test("a tool call left unanswered by a crash is answered as interrupted", () => {
    const h = new History();
    h.load(conversation.slice(0, 2));
    expect(h.messages.length).toBe(3);
    expect(h.messages[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Interrupted: bunker stopped before this ran.", is_error: true }],
    });
  });

  test("it starts with the person and merges repeated roles", () => {
    const h = new History();
    h.load([
      { role: "assistant", content: "stray" },
      { role: "user", content: "a" },
      { role: "user", content: [{ type: "text", text: "b" }] },
      { role: "assistant", content: [{ type: "text", text: "c" }] },
    ]);
    expect(h.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(h.messages[0]!.content).toEqual([{ type: "text", text: "a" }, { type: "text", text: "b" }]);
  });
});

test("a conversation with no answer yet is not saved; from its first answer on it is", () => {
  const { store: s } = store();
  const r = new SessionRecorder(s, meta, () => {});
  r.save({ messages: conversation.slice(0, 1), todos: [] });
  expect(s.count(meta.root)).toBe(0);
  r.save({ messages: conversation.slice(0, 2), todos: [] });
  expect(s.find(r.id).messages).toHaveLength(2);
});

test("prompt history: per workspace, newest first, each message once; the last reply of a session", () => {
  const { store: s } = store();
  s.addPrompt(meta.root, "first");
  s.addPrompt(meta.root, "second");
  s.addPrompt("/elsewhere", "not here");
  s.addPrompt(meta.root, "first");
  expect(s.prompts(meta.root)).toEqual(["first", "second"]);
  expect(s.prompts("/elsewhere")).toEqual(["not here"]);
  new SessionRecorder(s, meta, () => {}, "lastreply1").save({ messages: conversation, todos: [] });
  expect(s.lastReply("lastreply1")).toBe("Because x is 1.");
  // A reply that ends in a code block: its last line that says something outside the code, not the fence (new user:
  // "→ ```"), nor a line from inside the block (N11-14: "→ const x = 1;" read as cut mid-code).
  const fenced = [...conversation, { role: "user" as const, content: "show it" }, { role: "assistant" as const, content: "Here it is:\n\n```ts\nconst x = 1;\n```\n" }];
  new SessionRecorder(s, meta, () => {}, "lastreply2").save({ messages: fenced, todos: [] });
  expect(s.lastReply("lastreply2")).toBe("Here it is:");
  // All code: its last code line.
  const onlyCode = [...conversation, { role: "user" as const, content: "code only" }, { role: "assistant" as const, content: "```sh\nbun test\n```" }];
  new SessionRecorder(s, meta, () => {}, "lastreply3").save({ messages: onlyCode, todos: [] });
  expect(s.lastReply("lastreply3")).toBe("bun test");
});

test("the tokens a session used are saved with it and come back with -c and -r; a save without them keeps the last; none saved reads as null", () => {
  const store = SessionStore.open(join(tempDir("bunker-store-usage-"), "sessions.db"));
  const meta = { root: "/w", model: "m" };
  const messages = [{ role: "user" as const, content: "hi" }, { role: "assistant" as const, content: "hello" }];
  const usage = { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 3, cache_read_input_tokens: 4 };
  expect(store.save("aaaabbbbcc", meta, { messages, todos: [] }, null)).toBe(1);
  expect(store.latest("/w")!.usage).toBeNull();
  expect(store.save("aaaabbbbcc", meta, { messages, todos: [], usage }, 1)).toBe(2);
  expect(store.latest("/w")!.usage).toEqual(usage);
  expect(store.save("aaaabbbbcc", meta, { messages, todos: [] }, 2)).toBe(3);
  expect(store.find("aaaab").usage).toEqual(usage);
  expect(store.find("aaaab").contextTokens).toBeNull();
  // How full the context was at the last request rides with the usage (what -c shows and compacts from); the totals stay just totals.
  expect(store.save("aaaabbbbcc", meta, { messages, todos: [], usage, contextTokens: 123_456 }, 3)).toBe(4);
  expect(store.latest("/w")).toMatchObject({ usage, contextTokens: 123_456 });
  store.close();
});

test("a save is all or nothing: when its token usage cannot be written, the conversation stays as it was saved before", () => {
  const path = join(tempDir("bunker-store-atomic-"), "sessions.db");
  const store = SessionStore.open(path);
  const meta = { root: "/w", model: "m" };
  const first = [{ role: "user" as const, content: "hi" }, { role: "assistant" as const, content: "hello" }];
  const usage = { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  expect(store.save("aaaabbbbcc", meta, { messages: first, todos: [], usage }, null)).toBe(1);
  // A second connection makes the usage write fail (as a full disk would, halfway through a save).
  const other = new Database(path);
  other.exec("CREATE TRIGGER no_usage BEFORE INSERT ON session_usage BEGIN SELECT RAISE(ABORT, 'disk full'); END");
  other.close();
  const longer = [...first, { role: "user" as const, content: "and then?" }, { role: "assistant" as const, content: "then this" }];
  expect(() => store.save("aaaabbbbcc", meta, { messages: longer, todos: [], usage: { ...usage, output_tokens: 9 } }, 1)).toThrow("disk full");
  const saved = store.find("aaaabbbbcc");
  expect(saved.version).toBe(1);
  expect(saved.messages).toEqual(first);
  expect(saved.usage).toEqual(usage);
  store.close();
});

test("the recorder saves the session's total: earlier runs plus this one's; after /clear the new session counts only what it used", () => {
  const store = SessionStore.open(join(tempDir("bunker-recorder-usage-"), "sessions.db"));
  const meta = { root: "/w", model: "m" };
  const messages = [{ role: "user" as const, content: "hi" }, { role: "assistant" as const, content: "hello" }];
  const u = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  const recorder = new SessionRecorder(store, meta, () => {}, "cccc000001", null);
  recorder.continuesFrom(u(100, 10));
  const live = u(0, 0);
  recorder.trackUsage(live, true);
  // Carried: the live totals (what the status line shows) start from the earlier runs'.
  expect(live).toEqual(u(100, 10));
  live.input_tokens += 50;
  recorder.save({ messages, todos: [] });
  expect(store.find("cccc000001").usage).toEqual(u(150, 10));
  recorder.startNew();
  live.input_tokens += 7;
  live.output_tokens += 3;
  recorder.save({ messages, todos: [] });
  expect(store.find(recorder.id).usage).toEqual(u(7, 3));
  expect(store.find("cccc000001").usage).toEqual(u(150, 10));
  // Headless: the live totals stay this run's; the saved total still adds the earlier runs.
  const headless = new SessionRecorder(store, meta, () => {}, "cccc000002", null);
  headless.continuesFrom(u(100, 10));
  const run = u(20, 2);
  headless.trackUsage(run, false);
  headless.save({ messages, todos: [] });
  expect(run).toEqual(u(20, 2));
  expect(store.find("cccc000002").usage).toEqual(u(120, 12));
  store.close();
});

test("promptAfter: the newest message sent after a time, not a command nor exit; a path first is a message (N12-18)", () => {
  const { store: s } = store();
  const before = Date.now() - 1;
  expect(s.promptAfter("/ws", before)).toBeNull();
  s.addPrompt("/ws", "go slow after crash");
  s.addPrompt("/ws", "/tmp/shot.png what is this?");
  s.addPrompt("/other", "elsewhere");
  expect(s.promptAfter("/ws", before)?.text).toBe("/tmp/shot.png what is this?");
  s.addPrompt("/ws", "/cost");
  s.addPrompt("/ws", "exit");
  expect(s.promptAfter("/ws", before)?.text).toBe("/tmp/shot.png what is this?");
  expect(s.promptAfter("/ws", Date.now() + 1000)).toBeNull();
  s.close();
});

test("plainMarkdown: a reply's line as it reads rendered, for the picker (N12-02); a lone * and snake_case are left", () => {
  expect(plainMarkdown("The package is **ready** now")).toBe("The package is ready now");
  expect(plainMarkdown("## Done")).toBe("Done");
  expect(plainMarkdown("- use `bun test` and _care_")).toBe("use bun test and care");
  expect(plainMarkdown("see [the docs](https://x.io) *here*")).toBe("see the docs here");
  expect(plainMarkdown("a * b * c")).toBe("a * b * c");
  expect(plainMarkdown("snake_case_name stays")).toBe("snake_case_name stays");
});
