// Shared pieces of the end-to-end tests that run bunker as a process against
// the scripted Messages API: which bunker to run, a private workspace, a
// headless run, the tool_results it sent, and driving its prompt in tmux.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeAnthropic, ServedRequest } from "./fake-anthropic.ts";
import { tempDir } from "./context.ts";
import type { TmuxSession } from "./tmux.ts";

export const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");
/** BUNKER_BIN=path/to/compiled/bunker runs these against the compiled binary instead of the source. */
export const BUNKER = process.env.BUNKER_BIN ? [process.env.BUNKER_BIN] : ["bun", MAIN];

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

/** Closes what a test started: the terminal first (it talks to the server), then the server. */
export async function stopAll(tmux: TmuxSession | undefined, fake: FakeAnthropic | undefined): Promise<void> {
  tmux?.close();
  await fake?.stop();
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
export async function press(tmux: TmuxSession, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    tmux.keys([k]);
    await Bun.sleep(k === "Escape" ? 150 : 60);
  }
}

/** Ctrl+D at the prompt; returns the exit status, or null if bunker is still running after 10 s. */
export async function quitWithCtrlD(tmux: TmuxSession): Promise<number | null> {
  await Bun.sleep(100);
  tmux.keys(["C-d"]);
  const deadline = Date.now() + 10_000;
  while (tmux.exitStatus() === null && Date.now() < deadline) await Bun.sleep(50);
  return tmux.exitStatus();
}
