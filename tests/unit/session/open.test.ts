// Which session a run records into (new, -c, -r ID), the list for a bare
// --resume, the command that continues a session, and the prompt history.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseConfig, type Config } from "../../../src/config.ts";
import { continueCommand, listSessions, openSession, promptHistory } from "../../../src/session/open.ts";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { JournalWriter, pendingDir } from "../../../src/session/journal.ts";
import { SessionError, SessionStore } from "../../../src/session/store.ts";
import { tempDir } from "../../support/context.ts";
import { thrownAsync } from "../../support/thrown.ts";

function config(root: string, state: string, ...flags: string[]): Config {
  return parseConfig(["-C", root, ...flags, "-p", "hi"], { ANTHROPIC_API_KEY: "k", XDG_STATE_HOME: state }, false).config!;
}

/** The REPL's config: no prompt, on a terminal. */
function interactive(root: string, state: string): Config {
  return parseConfig(["-C", root], { ANTHROPIC_API_KEY: "k", XDG_STATE_HOME: state }, true).config!;
}

/** A saved session of one exchange in `root`, as a finished run leaves it. */
function saveOne(cfg: Config, id: string, prompt: string, model = "claude-saved"): void {
  const store = SessionStore.open(cfg.sessionsPath);
  store.save(id, { root: cfg.root, model }, { messages: [{ role: "user", content: prompt }, { role: "assistant", content: [{ type: "text", text: "ok" }] }], todos: [] }, null);
  store.close();
}

describe("openSession", () => {
  test("with no -c or -r: a new session that is saved", async () => {
    const cfg = config(tempDir("bunker-open-ws-"), tempDir("bunker-open-state-"));
    const warnings: string[] = [];
    const s = await openSession(cfg, (w) => warnings.push(w));
    expect(s.resumed).toBeNull();
    expect(s.recorder.saving).toBe(true);
    expect(s.model).toBe(cfg.model);
    expect(warnings).toEqual([]);
  });

  test("a new session's store is opened when first needed (beside the first request), not when the session is picked", async () => {
    const cfg = interactive(tempDir("bunker-open-ws-"), tempDir("bunker-open-state-"));
    const s = await openSession(cfg, () => {});
    expect(existsSync(cfg.sessionsPath)).toBe(false);
    // Before any answer there is nothing to save, and nothing is opened for it.
    s.recorder.save({ messages: [{ role: "user", content: "hi" }], todos: [] });
    expect(existsSync(cfg.sessionsPath)).toBe(false);
    expect(s.recorder.open()).not.toBeNull();
    expect(existsSync(cfg.sessionsPath)).toBe(true);
  });

  test("a new headless session writes a journal of its own (made beside the first request), never the store; the next opening of the store holds it", async () => {
    const cfg = config(tempDir("bunker-open-ws-"), tempDir("bunker-open-state-"));
    const s = await openSession(cfg, () => {});
    expect(existsSync(pendingDir(cfg.sessionsPath))).toBe(false);
    s.recorder.open();
    expect(readdirSync(pendingDir(cfg.sessionsPath))).toHaveLength(1);
    s.recorder.save({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "text", text: "hello" }] }], todos: [] });
    expect(s.recorder.saved).toBe(true);
    await s.recorder.finish();
    expect(existsSync(cfg.sessionsPath)).toBe(false);
    const store = SessionStore.open(cfg.sessionsPath);
    expect(store.latest(cfg.root)).toMatchObject({ id: s.recorder.id, title: "hi", messageCount: 2, running: null });
    store.close();
  });

  test("past 64 journals waiting, a headless run takes them into the store after its answer; fewer stay for the next reader", async () => {
    const cfg = config(tempDir("bunker-open-ws-"), tempDir("bunker-open-state-"));
    const exchange: MessageParam[] = [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "text", text: "hello" }] }];
    const run = async () => {
      const s = await openSession(cfg, () => {});
      s.recorder.open();
      s.recorder.save({ messages: exchange, todos: [] });
      await s.recorder.finish();
      await s.recorder.foldIfMany();
    };
    // Journals of runs that have exited (no such pid), as a script calling bunker -p in a loop leaves them.
    for (let i = 0; i < 63; i++) {
      const w = JournalWriter.create(cfg.sessionsPath, { id: `h${String(i).padStart(9, "0")}`, root: cfg.root, model: "m" }, "999999999:1");
      w.append({ messages: exchange, todos: [], running: null });
      await w.finish();
    }
    await run();
    expect(existsSync(cfg.sessionsPath)).toBe(false);
    expect(readdirSync(pendingDir(cfg.sessionsPath))).toHaveLength(64);
    await run();
    // All 65 are in the store; the two runs' own journals stay until a later reader (their writer, this process, still runs).
    expect(readdirSync(pendingDir(cfg.sessionsPath))).toHaveLength(2);
    const store = SessionStore.open(cfg.sessionsPath);
    expect(store.count(cfg.root)).toBe(65);
    store.close();
  });

  test("a headless run that got no answer leaves no journal behind", async () => {
    const cfg = config(tempDir("bunker-open-ws-"), tempDir("bunker-open-state-"));
    const s = await openSession(cfg, () => {});
    s.recorder.open();
    s.recorder.save({ messages: [{ role: "user", content: "hi" }], todos: [] });
    expect(s.recorder.saved).toBe(false);
    await s.recorder.finish();
    expect(readdirSync(pendingDir(cfg.sessionsPath))).toEqual([]);
  });

  test("--no-session-persistence: a session that saves nothing, opens no store, keeps no prompt history, and says nothing about it", async () => {
    const cfg = config(tempDir("bunker-open-ws-"), tempDir("bunker-open-state-"), "--no-session-persistence");
    const warnings: string[] = [];
    const s = await openSession(cfg, (w) => warnings.push(w));
    s.recorder.save({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "text", text: "ok" }] }], todos: [] });
    expect(s.recorder.saving).toBe(false);
    expect(s.recorder.saved).toBe(false);
    expect(continueCommand(cfg.root, s.recorder)).toBe("");
    const history = await promptHistory(cfg);
    history.add("remember me");
    history.close();
    expect(existsSync(cfg.sessionsPath)).toBe(false);
    expect(warnings).toEqual([]);
  });

  test("-c with nothing saved here starts a new session and says so", async () => {
    const s = await openSession(config(tempDir("bunker-open-ws-"), tempDir("bunker-open-state-"), "-c"), () => {});
    expect(s.resumed).toBeNull();
    expect(s.notice).toBe("No earlier session in this workspace: starting a new one.");
  });

  test("-c continues the newest session here, keeping its model unless -m names one", async () => {
    const root = tempDir("bunker-open-ws-");
    const state = tempDir("bunker-open-state-");
    saveOne(config(root, state), "aaaaaaaaaa", "first question");
    const s = await openSession(config(root, state, "-c"), () => {});
    expect(s.resumed?.id).toBe("aaaaaaaaaa");
    expect(s.model).toBe("claude-saved");
    expect((await openSession(config(root, state, "-c", "-m", "claude-other"), () => {})).model).toBe("claude-other");
  });

  test("-r ID of another workspace's session is refused, naming the command that continues it", async () => {
    const state = tempDir("bunker-open-state-");
    const there = tempDir("bunker-open-ws-");
    saveOne(config(there, state), "bbbbbbbbbb", "elsewhere");
    const err = await thrownAsync(() => openSession(config(tempDir("bunker-open-ws-"), state, "-r", "bbbbbbbbbb"), () => {}), SessionError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`session bbbbbbbbbb was in ${there}, not here: run bunker -C ${there} -r bbbbbbbbbb`);
  });

  test("a store that cannot open: the run goes on unsaved, with a warning", async () => {
    const blocker = join(tempDir("bunker-open-state-"), "file");
    Bun.write(blocker, "not a directory");
    const warnings: string[] = [];
    const cfg = config(tempDir("bunker-open-ws-"), blocker);
    const s = await openSession(cfg, (w) => warnings.push(w));
    expect(s.recorder.saving).toBe(false);
    expect(warnings[0]).toStartWith("This session will not be saved: ");
    // Nothing to continue: no command is offered.
    expect(continueCommand(cfg.root, s.recorder, cfg.root)).toBe("");
  });
});

describe("listSessions and continueCommand", () => {
  test("the list names each session with its age, size and title, escaped; none says so", async () => {
    const root = tempDir("bunker-open-ws-");
    const state = tempDir("bunker-open-state-");
    const cfg = config(root, state);
    expect((await listSessions(cfg))).toEqual({ text: `No saved sessions in ${root}.\n`, code: 0 });
    saveOne(cfg, "cccccccccc", "fix the \x1b[31mbug\x1b[0m");
    const { text, code } = await listSessions(cfg);
    expect(code).toBe(0);
    expect(text).toStartWith(`Sessions in ${root}, newest first:\n  cccccccccc  just now    1 prompt    `);
    expect(text).toContain("fix the \\x1b[31mbug\\x1b[0m");
    expect(text).toEndWith("Continue one with: bunker -r ID  (the newest: bunker -c)\n");
  });

  test("continueCommand adds -C (quoted) only when run from elsewhere", async () => {
    const root = tempDir("bunker open ws ");
    const s = await openSession(config(root, tempDir("bunker-open-state-")), () => {});
    expect(continueCommand(root, s.recorder, root)).toBe(`bunker -r ${s.recorder.id}`);
    expect(continueCommand(root, s.recorder, "/")).toBe(`bunker -C '${root}' -r ${s.recorder.id}`);
  });
});

test("promptHistory: earlier prompts of this workspace, newest first", async () => {
  const cfg = config(tempDir("bunker-open-ws-"), tempDir("bunker-open-state-"));
  const h = await promptHistory(cfg);
  h.add("one");
  h.add("two");
  h.close();
  const again = await promptHistory(cfg);
  expect(again.earlier.slice(0, 2)).toEqual(["two", "one"]);
  again.close();
});
