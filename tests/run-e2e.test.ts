// End to end: bunker (src/main.ts) against the scripted Messages API, with
// run_bash. Headless under --no-prompt (refused, naming --allow-run) and
// --allow-run (runs, output returned), and the real prompt in a
// pseudo-terminal (tmux) where the person approves, allows a prefix for the
// session, and refuses with a reason.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../src/sandbox/detect.ts";
import { startFakeAnthropic, type FakeAnthropic, type ServedRequest } from "./support/fake-anthropic.ts";
import { reply, toolUse } from "./support/fake-anthropic/steps.ts";
import { tempDir } from "./support/context.ts";
import { TmuxSession, tmuxAvailable } from "./support/tmux.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
/** BUNKER_BIN=path/to/compiled/bunker runs these against the compiled binary instead of the source. */
const BUNKER = process.env.BUNKER_BIN ? [process.env.BUNKER_BIN] : ["bun", MAIN];

// run_bash reaches the model once src/tools/all.ts lists it (see the bash
// branch's report). Until then these are skipped, by name, rather than failing.
const SRC = join(import.meta.dir, "..", "src");
const source = (path: string) => (existsSync(join(SRC, path)) ? readFileSync(join(SRC, path), "utf8") : "");
const wired = source("tools/all.ts").includes("createRunBashTool");
const sandboxed = detectSandbox().kind !== null;

let fake: FakeAnthropic | undefined;
let tmux: TmuxSession | undefined;
afterEach(async () => {
  tmux?.close();
  tmux = undefined;
  await fake?.stop();
  fake = undefined;
});

/** A workspace, plus a private HOME and config dir so no real settings file is read. */
function workspace(files: Record<string, string> = {}): { root: string; env: Record<string, string> } {
  const base = tempDir("bunker-run-e2e-");
  const root = join(base, "ws");
  mkdirSync(root, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const env = { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config"), ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake!.url };
  return { root, env };
}

/** The tool_result blocks bunker sent in a request, as text. */
function toolResults(req: ServedRequest | undefined): { content: string; is_error: boolean }[] {
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

async function runHeadless(root: string, env: Record<string, string>, args: string[]) {
  const proc = Bun.spawn([...BUNKER, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

const run = (command: string) => toolUse("run_bash", { command });

describe.skipIf(!wired)(`headless${wired ? "" : " (skipped: run_bash not in src/tools/all.ts yet)"}`, () => {
  test("--no-prompt: the command is refused, nothing runs, the result and stderr name --allow-run", async () => {
    fake = startFakeAnthropic([reply([run("touch made.txt")]), reply("I could not run it.")]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "make a file", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(root, "made.txt"))).toBe(false);
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain("--allow-run=touch");
    expect(r.stderr).toContain("--allow-run");
    expect(r.stdout).toBe("I could not run it.\n");
  });

  test("--allow-run: the command runs in the workspace and its output goes back, without secrets", async () => {
    fake = startFakeAnthropic([reply([run("echo hello > out.txt && cat out.txt && echo \"key=[$ANTHROPIC_API_KEY]\"")]), reply("Done.")]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "say hello", "--allow-run"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(root, "out.txt"), "utf8")).toBe("hello\n");
    expect(toolResults(fake.requests[1])).toEqual([{ is_error: false, content: "exit code 0\n\nhello\nkey=[]" }]);
    expect(r.stdout).toBe("Done.\n");
  });

  test("--allow-run=git grants git, not what is chained after it", async () => {
    fake = startFakeAnthropic([reply([run("git --version && touch sneaky.txt")]), reply("Refused.")]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run=git"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(root, "sneaky.txt"))).toBe(false);
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain("--allow-run");
  });

  test.skipIf(!sandboxed)("--allow-run with the sandbox: a write outside the workspace is blocked and says so", async () => {
    const outside = `/var/tmp/bunker-e2e-outside-${process.pid}`;
    fake = startFakeAnthropic([reply([run(`echo x > ${outside}`)]), reply("Blocked.")]);
    const { root, env } = workspace();
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run"]);
    expect(r.code).toBe(0);
    expect(existsSync(outside)).toBe(false);
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain("Read-only file system");
    expect(result?.content).toContain("The sandbox blocked a write");
  });
});

const ptyReady = tmuxAvailable && wired && source("app.ts").includes("TtyApprover");
describe.skipIf(!ptyReady)(`in a real terminal (tmux)${ptyReady ? "" : " (skipped: needs tmux, run_bash in src/tools/all.ts and TtyApprover)"}`, () => {
  const count = (screen: string, text: string) => screen.split(text).length - 1;

  async function waitForCount(text: string, n: number): Promise<string> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const screen = tmux!.screen();
      if (count(screen, text) >= n) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${n}× ${JSON.stringify(text)}; screen:\n${screen}`);
      await Bun.sleep(50);
    }
  }

  async function press(...keys: string[]): Promise<void> {
    for (const k of keys) {
      tmux!.keys([k]);
      await Bun.sleep(60);
    }
  }

  test("the command is shown with where it runs; yes, a session prefix, and no with a reason each do what they say", async () => {
    fake = startFakeAnthropic([
      reply([run("touch one.txt")]), // 1: Yes
      reply([run("mkdir -p a && touch a/x")]), // 2: Yes, and always allow commands starting with `mkdir`
      reply([run("mkdir -p b")]), // 3: covered by the prefix, not asked
      reply([run("rm -rf a")]), // 4: No, with a reason
      reply("All done."),
    ]);
    const { root, env } = workspace();
    tmux = await TmuxSession.start([...BUNKER, "make some files"], { cwd: root, env, cols: 120, rows: 50 });

    // 1: what will run, where, how confined; then Yes
    let screen = await waitForCount("Run this command?", 1);
    expect(screen).toContain("run_bash wants to run a command");
    expect(screen).toContain("$ touch one.txt");
    expect(screen).toContain(`in ${root}`);
    expect(screen).toContain(`sandboxed: ${sandboxed ? "yes" : "no"}`);
    expect(screen).toContain(`network: ${sandboxed ? "no" : "yes"}`);
    expect(existsSync(join(root, "one.txt"))).toBe(false);
    await press("Enter");

    // 2: the prefix offered is the program that needs the grant
    screen = await waitForCount("Run this command?", 2);
    expect(existsSync(join(root, "one.txt"))).toBe(true);
    expect(screen).toContain("Yes, and always allow commands starting with `mkdir`");
    await press("Down", "Enter");

    // 3 is not asked; 4: No, and why
    screen = await waitForCount("Run this command?", 3);
    expect(screen).toContain("$ rm -rf a");
    expect(existsSync(join(root, "a", "x"))).toBe(true);
    expect(existsSync(join(root, "b"))).toBe(true);
    await press("Up", "Enter");
    await waitForCount("Why not (sent to Claude)?", 1);
    tmux.keys(["keep the directory"], true);
    await press("Enter");

    screen = await waitForCount("All done.", 1);
    expect(existsSync(join(root, "a"))).toBe(true);
    expect(toolResults(fake.requests[4])[0]).toEqual({ is_error: true, content: "The person refused running `rm -rf a` and said: keep the directory" });
    expect(count(screen, "Run this command?")).toBe(3);

    await Bun.sleep(100);
    tmux.keys(["C-d"]);
    const deadline = Date.now() + 10_000;
    while (tmux.exitStatus() === null && Date.now() < deadline) await Bun.sleep(50);
    expect(tmux.exitStatus()).not.toBeNull();
  });
});
