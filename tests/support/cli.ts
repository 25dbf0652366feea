// Shared pieces of the end-to-end tests that run bunker (or its loop) against
// the scripted Messages API: the per-test set-up (server, terminal, workspace,
// teardown), which bunker to run, a headless run, the tool_results it sent,
// and driving its prompt in tmux.
import { afterEach } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freshBinary } from "../../scripts/build/fresh.ts";
import { startFakeAnthropic, type FakeAnthropic, type FakeAnthropicOptions, type ServedRequest, type Step } from "./fake-anthropic.ts";
import { tempDir } from "./context.ts";
import { TmuxSession, type TmuxOptions } from "./tmux.ts";
import { QUIET_MS } from "../../src/ui/typeahead.ts";

export const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");
/**
 * The bunker the end-to-end tests run: by default the compiled binary of the
 * sources as they are now (dist/bunker, compiled when a source is newer, once
 * for the whole run), which starts in a tenth of the time `bun src/main.ts`
 * takes and is what ships; BUNKER_BIN=source runs `bun src/main.ts` instead
 * (.ci/run does both), BUNKER_BIN=path another binary.
 */
export const BUNKER: string[] =
  process.env.BUNKER_BIN === "source" ? ["bun", MAIN] : process.env.BUNKER_BIN ? [process.env.BUNKER_BIN] : [(await freshBinary()).path];

/** A workspace with `files`, plus a private HOME and config dir so no real settings file is read. */
export function workspace(prefix: string, serverUrl: string, files: Record<string, string> = {}): { root: string; env: Record<string, string> } {
  const base = tempDir(prefix);
  const root = join(base, "ws");
  mkdirSync(root, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const env = { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config"), ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: serverUrl };
  return { root, env };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs bunker to the end with only PATH and `env` in its environment. */
export async function runBunker(args: string[], opts: { cwd: string; env: Record<string, string>; argv?: string[] }): Promise<Run> {
  const proc = Bun.spawn([...(opts.argv ?? BUNKER), ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? "", ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A headless run in the workspace `root`. */
export const runHeadless = (root: string, env: Record<string, string>, args: string[]) => runBunker(args, { cwd: root, env });

/** The tool_result blocks bunker sent in a request, as text. */
export function toolResults(req: ServedRequest | undefined): { content: string; is_error: boolean }[] {
  const last = req?.body.messages.at(-1);
  if (!last || typeof last.content === "string") return [];
  return last.content
    .filter((b) => b.type === "tool_result")
    .map((b) => {
      const r = b as { content?: string | { type: string; text?: string }[]; is_error?: boolean };
      const content = typeof r.content === "string" ? r.content : (r.content ?? []).map((c) => c.text ?? "").join("");
      return { content, is_error: r.is_error === true };
    });
}

/** What one end-to-end test starts, through `endToEnd()`; all of it is closed after the test. */
export interface EndToEnd {
  /** Starts the scripted server for this test. */
  serve(steps: Step[], opts?: FakeAnthropicOptions): FakeAnthropic;
  /** The server this test started last (throws when it started none). */
  readonly fake: FakeAnthropic;
  /** Starts `argv` in a real terminal (tmux) for this test. */
  terminal(argv: string[], opts: TmuxOptions): Promise<TmuxSession>;
  /** The terminal this test started last (throws when it started none). */
  readonly tmux: TmuxSession;
  /** A private workspace (own HOME and config dir) whose bunker talks to this test's server. */
  workspace(files?: Record<string, string>): { root: string; env: Record<string, string> };
  /** The common headless test: a server scripted with `steps`, a workspace holding `files`, one run of bunker with `args`. */
  headless(steps: Step[], args: string[], files?: Record<string, string>): Promise<{ fake: FakeAnthropic; root: string; env: Record<string, string>; run: Run }>;
}

/**
 * The set-up every end-to-end test file shares: call once at the top of the
 * file. After each test the terminal is closed first (it talks to the
 * server), then the server is stopped.
 */
export function endToEnd(prefix = "bunker-e2e-"): EndToEnd {
  let fakes: FakeAnthropic[] = [];
  let terminals: TmuxSession[] = [];
  afterEach(async () => {
    const [ts, fs] = [terminals, fakes];
    terminals = [];
    fakes = [];
    for (const t of ts) t.close();
    await Promise.all(fs.map((f) => f.stop()));
  });
  const current = (): FakeAnthropic | undefined => fakes.at(-1);
  return {
    serve(steps, opts) {
      const fake = startFakeAnthropic(steps, opts);
      fakes.push(fake);
      return fake;
    },
    get fake() {
      const fake = current();
      if (!fake) throw new Error("this test started no scripted server (call serve first)");
      return fake;
    },
    get tmux() {
      const t = terminals.at(-1);
      if (!t) throw new Error("this test started no terminal (call terminal first)");
      return t;
    },
    async terminal(argv, opts) {
      const t = await TmuxSession.start(argv, opts);
      terminals.push(t);
      return t;
    },
    workspace(files = {}) {
      const fake = current();
      if (!fake) throw new Error("start the scripted server (serve) before the workspace: its URL goes into the environment");
      return workspace(prefix, fake.url, files);
    },
    async headless(steps, args, files = {}) {
      const fake = this.serve(steps);
      const { root, env } = this.workspace(files);
      return { fake, root, env, run: await runHeadless(root, env, args) };
    },
  };
}

/** Counts how often `text` is on screen (scrollback included). */
export const count = (screen: string, text: string) => screen.split(text).length - 1;

/** Waits until `text` is on screen at least `n` times; returns the screen. */
export async function waitForCount(tmux: TmuxSession, text: string, n: number): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const screen = tmux.screen();
    if (count(screen, text) >= n) return screen;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${n}× ${JSON.stringify(text)}; screen:\n${screen}`);
    await Bun.sleep(50);
  }
}

/** Presses keys one at a time, giving the prompt time to redraw (Escape needs longer to tell from a sequence). */
/**
 * Waits for the n-th `question` on screen, then as long as a person reading it would: a question drawn within
 * a second of another closing takes keys only after a pause (src/ui/key-feed.ts), so a key for the one before never answers it.
 */
export async function waitForQuestion(tmux: TmuxSession, question: string, n: number): Promise<string> {
  const screen = await waitForCount(tmux, question, n);
  await Bun.sleep(QUIET_MS + 100);
  return screen;
}

export async function press(tmux: TmuxSession, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    tmux.keys([k]);
    await Bun.sleep(k === "Escape" ? 150 : 60);
  }
}

/** The prompt is back and empty: the last line on screen that starts with the prompt's mark has nothing after it. */
export function atEmptyPrompt(tmux: TmuxSession): boolean {
  const prompts = tmux.visible().split("\n").filter((l) => l.startsWith("›"));
  return /^›\s*$/.test(prompts.at(-1) ?? "");
}

/**
 * Ctrl+D at the prompt, once the prompt is back (a Ctrl+D typed while a turn is still ending, its answer
 * already on screen, is not at the prompt and leaves nothing: a fixed 100 ms wait raced that on a loaded
 * machine); returns the exit status, or null if bunker is still running after 10 s.
 */
export async function quitWithCtrlD(tmux: TmuxSession): Promise<number | null> {
  const back = Date.now() + 15_000;
  while (!atEmptyPrompt(tmux)) {
    if (Date.now() > back) throw new Error(`timed out waiting for the empty prompt; screen:\n${tmux.visible()}`);
    await Bun.sleep(50);
  }
  tmux.keys(["C-d"]);
  const deadline = Date.now() + 10_000;
  while (tmux.exitStatus() === null && Date.now() < deadline) await Bun.sleep(50);
  return tmux.exitStatus();
}
