// End to end: bunker (src/main.ts) against the scripted Messages API, with
// run_bash. Headless under --no-prompt (refused, naming --allow-run) and
// --allow-run (runs, output returned), and the real prompt in a
// pseudo-terminal (tmux) where the person approves, allows a prefix for the
// session, and refuses with a reason.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { BUNKER, count, endToEnd, press, quitWithCtrlD, runHeadless, toolResults, waitForCount, waitForQuestion } from "../support/cli.ts";
import { alive } from "../support/process.ts";
import { tmuxAvailable } from "../support/tmux.ts";
import { until } from "../support/wait.ts";

const sandboxed = detectSandbox().kind !== null;

const e2e = endToEnd("bunker-run-e2e-");

const run = (command: string) => toolUse("run_bash", { command });

describe("headless", () => {
  /** A turn in which the model runs `command` under `flags` and bunker refuses it: nothing runs, the model is told. */
  async function refused(command: string, made: string, flags: string[], files: Record<string, string> = {}) {
    const { fake, root, run: r } = await e2e.headless([reply([run(command)]), reply("I could not run it.")], ["-p", "go", ...flags], files);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("I could not run it.\n");
    expect(existsSync(join(root, made))).toBe(false);
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    return { root, stderr: r.stderr, result: result!.content };
  }

  test("--no-prompt: the command is refused, nothing runs, the result and stderr name --allow-run", async () => {
    const { stderr, result } = await refused("touch made.txt", "made.txt", ["--no-prompt"]);
    expect(result).toContain("--allow-run=touch");
    expect(stderr).toContain("--allow-run");
  });

  test("a cloned repo's .bunker/settings.json cannot allow itself commands: warned at start, the command refused", async () => {
    const { root, stderr, result } = await refused("touch made.txt", "made.txt", ["--no-prompt"], { ".bunker/settings.json": '{"allow": ["run:touch *", "net:*"]}' });
    expect(stderr).toContain(`${join(root, ".bunker/settings.json")}:1:12: ignored "run:touch *": a workspace's own settings cannot allow commands`);
    expect(stderr).toContain('ignored "net:*"');
    expect(result).toContain("--allow-run=touch");
  });

  test("--allow-run: the command runs in the workspace and its output goes back, without secrets", async () => {
    const { fake, root, run: r } = await e2e.headless([reply([run("echo hello > out.txt && cat out.txt && echo \"key=[$ANTHROPIC_API_KEY]\"")]), reply("Done.")], ["-p", "say hello", "--allow-run"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(root, "out.txt"), "utf8")).toBe("hello\n");
    expect(toolResults(fake.requests[1])).toEqual([{ is_error: false, content: "exit code 0\n\nhello\nkey=[]" }]);
    expect(r.stdout).toBe("Done.\n");
  });

  test("a command's last line is shown once on stderr: fast (no progress line), slow (its progress line is not repeated), and not at all in stream-json", async () => {
    const occurrences = (text: string, line: string) => text.split("\n").filter((l) => l.trim().replace(/^│ /, "") === line).length;
    const fast = await e2e.headless([reply([run("echo first; echo LAST-FAST")]), reply("Done.")], ["-p", "go", "--allow-run"]);
    expect(fast.run.stderr).toContain("    exit code 0\n    first\n    LAST-FAST\n");
    expect(occurrences(fast.run.stderr, "LAST-FAST")).toBe(1);
    // Slow enough for a progress line (`middle`, the latest after a second); LAST comes as progress or under the status, once.
    const slow = await e2e.headless([reply([run("echo first; echo middle; sleep 1.6; echo LAST-SLOW")]), reply("Done.")], ["-p", "go", "--allow-run"]);
    expect(slow.run.stderr).toContain("  │ middle\n");
    expect(occurrences(slow.run.stderr, "middle")).toBe(1);
    expect(occurrences(slow.run.stderr, "LAST-SLOW")).toBe(1);
    // Only `first` was shown nowhere, and the count says so.
    expect(occurrences(slow.run.stderr, "first")).toBe(0);
    expect(slow.run.stderr).toContain("    exit code 0\n    … (1 earlier line)\n");
    // stream-json: stdout carries the output once, in the tool result; stderr does not follow commands.
    const json = await e2e.headless([reply([run("echo first; echo middle; sleep 1.6; echo LAST-JSON")]), reply("Done.")], ["-p", "go", "--allow-run", "--output-format", "stream-json"]);
    const results = json.run.stdout.split("\n").filter((l) => l.includes('"tool_result"'));
    expect(results).toHaveLength(1);
    expect(results[0]!.split("LAST-JSON").length - 1).toBe(1);
    expect(json.run.stderr).not.toContain("LAST-JSON");
    expect(json.run.stderr).not.toContain("middle");
  }, 30_000);

  test("--allow-run=git grants git, not what is chained after it", async () => {
    const { result } = await refused("git --version && touch sneaky.txt", "sneaky.txt", ["--allow-run=git"]);
    expect(result).toContain("--allow-run");
  });

  test("--allow-run=git: git handed a program to run (a `!` alias, diff.external) asks for that program; granted too, it runs", async () => {
    const lines = [run("git -c alias.x='!touch pwned' x"), run("git -c diff.external='touch pwned2' diff --no-index a b"), run("git diff --no-index --stat a b")];
    const files = { a: "a\n", b: "b\n" };
    const fake = e2e.serve([reply(lines), reply("Done.")]);
    const { root, env } = e2e.workspace(files);
    const r = await runHeadless(root, env, ["-p", "go", "--allow-run=git", "--no-prompt"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(root, "pwned"))).toBe(false);
    expect(existsSync(join(root, "pwned2"))).toBe(false);
    const [alias, external, plain] = toolResults(fake.requests[1]);
    expect(alias?.is_error).toBe(true);
    expect(alias?.content).toContain("To grant it, run bunker with --allow-run=git,touch");
    expect(external?.content).toContain("--allow-run=git,touch");
    expect(plain?.content).toContain("1 file changed");

    const granted = e2e.serve([reply(lines.slice(0, 1)), reply("Done.")]);
    const again = e2e.workspace(files);
    expect((await runHeadless(again.root, again.env, ["-p", "go", "--allow-run=git,touch", "--no-prompt"])).code).toBe(0);
    expect(toolResults(granted.requests[1])[0]).toEqual({ is_error: false, content: "exit code 0\n\n(no output)" });
    expect(existsSync(join(again.root, "pwned"))).toBe(true);
  }, 20_000);

  test.skipIf(!sandboxed)("--allow-run with the sandbox: a write outside the workspace is blocked and says so", async () => {
    // A system directory: shown read-only (/tmp and /var/tmp are private, a write there would land in the sandbox's own).
    const outside = `/usr/local/bunker-e2e-outside-${process.pid}`;
    const { fake, run: r } = await e2e.headless([reply([run(`echo x > ${outside}`)]), reply("Blocked.")], ["-p", "go", "--allow-run"]);
    expect(r.code).toBe(0);
    expect(existsSync(outside)).toBe(false);
    const [result] = toolResults(fake.requests[1]);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain("Read-only file system");
    expect(result?.content).toContain("The sandbox blocked a write");
  });
});

describe("processes a command starts outside its group (setsid)", () => {
  // How long an escaped process waits before doing something: long enough that a loaded machine's slow
  // kill is still in time (1.5 s was not, with two test suites running beside this one).
  const FUSE_S = 4;
  const modes = sandboxed ? (["off", "on"] as const) : (["off"] as const);
  for (const mode of modes) {
    test(`--sandbox ${mode}: they die when the command ends and when its time is up; nothing they would do later happens`, async () => {
      const later = (marker: string) => `setsid sh -c 'sleep ${FUSE_S}; touch ${marker}' > /dev/null 2>&1 &`;
      const fake = e2e.serve([
        // The first keeps the command's output pipe open (setsid -f forks and leaves it behind at once); it
        // waits the same fuse (1.5 s was less than a loaded machine can take to end the command and kill it).
        reply([run(`setsid -f sh -c 'sleep ${FUSE_S}; touch after-end'; echo started`), toolUse("run_bash", { command: `${later("after-timeout")} sleep 30`, timeout_ms: 500 })]),
        reply("Done."),
      ]);
      const { root, env } = e2e.workspace();
      const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--sandbox", mode]);
      expect(r.code).toBe(0);
      const [ended, timedOut] = toolResults(fake.requests[1]);
      expect(ended?.content).toBe("exit code 0\n\nstarted");
      expect(timedOut?.content).toContain("timed out after 0.5s");
      await Bun.sleep(FUSE_S * 1000 + 500);
      expect(existsSync(join(root, "after-end"))).toBe(false);
      expect(existsSync(join(root, "after-timeout"))).toBe(false);
    }, 30_000);
  }

  test("--sandbox off: they die with bunker when it is stopped by SIGTERM", async () => {
    e2e.serve([reply([run(`setsid sh -c 'echo $$ > escaped.pid; sleep ${FUSE_S}; touch escaped' > /dev/null 2>&1 & echo $$ > pid.txt; sleep 30`)]), reply("never")]);
    const { root, env } = e2e.workspace();
    const proc = Bun.spawn([...BUNKER, "-p", "go", "--allow-run", "--sandbox", "off"], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const files = [join(root, "pid.txt"), join(root, "escaped.pid")];
    await until(() => files.every((f) => existsSync(f) && readFileSync(f, "utf8").trim()), "the command and its escaped process to write their pids");
    const escaped = Number(readFileSync(files[1]!, "utf8").trim());
    expect(alive(escaped)).toBe(true);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(143);
    expect(await until(() => !alive(escaped), "the escaped process to die", 10_000).catch(() => false)).toBe(true);
    await Bun.sleep(FUSE_S * 1000 + 200);
    expect(existsSync(join(root, "escaped"))).toBe(false);
  }, 45_000);
});

describe("when bunker itself is killed", () => {
  for (const [sig, code] of [["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    test(`${sig} with --sandbox off takes the running command down too (exit ${code})`, async () => {
      e2e.serve([reply([run("echo $$ > pid.txt; sleep 30")]), reply("never")]);
      const { root, env } = e2e.workspace();
      const proc = Bun.spawn([...BUNKER, "-p", "go", "--allow-run", "--sandbox", "off"], {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", ...env },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const pidFile = join(root, "pid.txt");
      const pid = Number(await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim(), "the command to write its pid"));
      expect(alive(pid)).toBe(true);
      proc.kill(sig);
      expect(await proc.exited).toBe(code);
      // Reaping the command may take a moment on a loaded machine; a command left running fails here after 10 s.
      expect(await until(() => !alive(pid), "the command to stop", 10_000).catch(() => false)).toBe(true);
    }, 45_000);
  }
});


describe.skipIf(!tmuxAvailable)("in a real terminal (tmux)", () => {
  test("answers typed ahead for two questions in one go (y Enter y Enter, Enter Enter) answer only the first: the second waits for a key pressed while it is shown; the rest is kept in the input line, unsent", async () => {
    for (const [typed, kept] of [[["y", "Enter", "y", "Enter"], "y"], [["Enter", "Enter"], ""]] as const) {
      const fake = e2e.serve([reply([run("touch one.txt"), run("touch two.txt")]), reply("Both made.")]);
      const { root, env } = e2e.workspace();
      const tmux = await e2e.terminal([...BUNKER, "make two files"], { cwd: root, env, cols: 120, rows: 50 });
      await waitForCount(tmux, "Run this command?", 1);
      // Both answers in one send-keys: the terminal hands them over in one read, before the second question is drawn.
      tmux.keys([...typed]);
      await waitForCount(tmux, "Run this command?", 2);
      expect(existsSync(join(root, "one.txt"))).toBe(true);
      // Not approved unseen: the second command waits.
      await Bun.sleep(500);
      expect(existsSync(join(root, "two.txt"))).toBe(false);
      expect(fake.requests).toHaveLength(1);
      tmux.keys(["y"]);
      await waitForCount(tmux, "Both made.", 1);
      expect(existsSync(join(root, "two.txt"))).toBe(true);
      expect(toolResults(fake.requests[1]).map((r) => r.is_error)).toEqual([false, false]);
      // What was typed ahead is in the input line, not sent: nothing more went to the model.
      await Bun.sleep(300);
      expect(fake.requests).toHaveLength(2);
      // (The tmux helper trims the blanks that end a row: an empty input line reads "›".)
      expect(tmux.visible()).toMatch(new RegExp(`\\n›${kept ? ` ${kept}` : ""} *\\n`));
      tmux.keys(["C-u"]);
      expect(await quitWithCtrlD(tmux)).not.toBeNull();
      tmux.close();
      await fake.stop();
    }
  }, 60_000);

  test("a question drawn while the person types their next message takes none of it: the letters and the Enter go on into the message; after a pause a key answers", async () => {
    const fake = e2e.serve([reply([run("touch asked.txt")], undefined, { delayMs: 1200 }), reply("Done."), reply("Noted.")]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "make a file"], { cwd: root, env, cols: 120, rows: 50 });
    await until(() => fake.requests.length === 1, "the first request");
    // Typing on at about 12 keys a second, through the moment the question is drawn, then Enter (to send the message).
    const message = "by the way, yes 2 keep it short";
    let shownAt = -1;
    for (const [i, ch] of [...message].entries()) {
      tmux.keys([ch], true);
      await Bun.sleep(80);
      if (shownAt < 0 && tmux.screen().includes("Run this command?")) shownAt = i;
    }
    tmux.keys(["Enter"]);
    await waitForCount(tmux, "Run this command?", 1);
    // The question came while typing went on: neither `y`, `2` nor Enter answered it.
    expect(shownAt).toBeGreaterThan(-1);
    expect(shownAt).toBeLessThan(message.length - 3);
    await Bun.sleep(700);
    expect(existsSync(join(root, "asked.txt"))).toBe(false);
    expect(fake.requests).toHaveLength(1);
    // A pause, then the answer.
    tmux.keys(["y"]);
    await waitForCount(tmux, "Done.", 1);
    expect(existsSync(join(root, "asked.txt"))).toBe(true);
    // The message is whole in the input line, unsent, nothing lost or doubled.
    await Bun.sleep(300);
    expect(fake.requests).toHaveLength(2);
    expect(tmux.visible()).toContain(`› ${message}`);
    tmux.keys(["Enter"]);
    await waitForCount(tmux, "Noted.", 1);
    expect(fake.requests[2]!.body.messages.at(-1)!.content).toMatchObject([{ type: "text", text: message }]);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    tmux.close();
    await fake.stop();
  }, 60_000);

  test("the command is shown with where it runs; yes (y), a session prefix (2), and no with a reason (n) each do what they say", async () => {
    const fake = e2e.serve([
      reply([run("touch one.txt")]), // 1: Yes
      reply([run("mkdir -p a && touch a/x")]), // 2: Yes, and don't ask again for `mkdir` and `touch` commands this session
      reply([run("mkdir -p b")]), // 3: covered by the prefix, not asked
      reply([run("rm -rf a")]), // 4: No, with a reason
      reply("All done."),
    ]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "make some files"], { cwd: root, env, cols: 120, rows: 50 });

    // 1: what will run, where, how confined; then Yes
    let screen = await waitForQuestion(tmux, "Run this command?", 1);
    expect(screen).toContain("run_bash wants to run a command");
    expect(screen).toContain("$ touch one.txt");
    expect(screen).toContain(`in ${root}`);
    expect(screen).toContain(`sandboxed: ${sandboxed ? "yes" : "no"}`);
    expect(screen).toContain(`network: ${sandboxed ? "each host asked unless granted" : "yes"}`);
    expect(existsSync(join(root, "one.txt"))).toBe(false);
    // Shortcut keys: y is yes this once, a number picks its option, n is no.
    expect(screen).toContain("1. Yes, this once");
    await press(tmux, "y");

    // 2: the prefixes offered are those of the programs that need a grant, each simple command's own
    screen = await waitForQuestion(tmux, "Run this command?", 2);
    expect(existsSync(join(root, "one.txt"))).toBe(true);
    expect(screen).toContain("2. Yes, and don't ask again for `mkdir` and `touch` commands this session");
    await press(tmux, "2");

    // 3 is not asked; 4: No, and why
    screen = await waitForQuestion(tmux, "Run this command?", 3);
    expect(screen).toContain("$ rm -rf a");
    expect(existsSync(join(root, "a", "x"))).toBe(true);
    expect(existsSync(join(root, "b"))).toBe(true);
    expect(screen).toContain("4. No, and tell Claude why");
    await press(tmux, "n");
    await waitForCount(tmux, "Why not (sent to Claude)?", 1);
    tmux.keys(["keep the directory"], true);
    await press(tmux, "Enter");

    screen = await waitForCount(tmux, "All done.", 1);
    expect(existsSync(join(root, "a"))).toBe(true);
    expect(toolResults(fake.requests[4])[0]).toEqual({ is_error: true, content: "The person refused running `rm -rf a` and said: keep the directory" });
    expect(count(screen, "Run this command?")).toBe(3);

    expect(await quitWithCtrlD(tmux)).not.toBeNull();
  });

  test("a long command is shown whole once, in the question: not a third time above its output", async () => {
    const long = `touch ${"z".repeat(110)}.txt && echo two-done`;
    const fake = e2e.serve([reply([run(long)]), reply("Ran it.")]);
    const { root, env } = e2e.workspace();
    const tmux = await e2e.terminal([...BUNKER, "go"], { cwd: root, env, cols: 200, rows: 50 });
    await waitForQuestion(tmux, "Run this command?", 1);
    await press(tmux, "y");
    const screen = await waitForCount(tmux, "Ran it.", 1);
    expect(screen).toContain("two-done");
    // The tool line cuts it (…); the question has it whole; nothing repeats it.
    expect(count(screen, `$ ${long}`)).toBe(1);
    expect(count(screen, long)).toBe(1);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    await fake.stop();
  });

  test("a compound line offers each command's prefix; \"always allow\" names the rules, saves them to the user's settings at once, and the next session does not ask", async () => {
    const fake = e2e.serve([
      reply([run("mkdir -p made && touch made/x.txt | cat; echo done")]), // asked: 3, then y to save
      reply("Saved."),
      reply([run("mkdir -p again && touch again/y.txt")]), // the next session: not asked
      reply("Not asked."),
    ]);
    const { root, env } = e2e.workspace();
    const settings = join(env.XDG_CONFIG_HOME!, "bunker", "settings.json");
    const tmux = await e2e.terminal([...BUNKER, "make files"], { cwd: root, env, cols: 120, rows: 50 });
    let screen = await waitForQuestion(tmux, "Run this command?", 1);
    expect(screen).toContain("2. Yes, and don't ask again for `mkdir` and `touch` commands this session");
    expect(screen).toContain("3. Yes, and always allow `run:mkdir *` and `run:touch *` in this workspace (saved to your settings)");
    expect(existsSync(settings)).toBe(false);
    await press(tmux, "3");
    // The option named the rules and where: saved at once, said in one line, no second question (N12-27).
    screen = await waitForCount(tmux, "Saved.", 1);
    expect(screen).not.toContain("Save these rules?");
    expect(screen).toContain("Saved to ");
    expect(JSON.parse(readFileSync(settings, "utf8"))).toEqual({ workspaces: { [root]: { allow: ["run:mkdir *", "run:touch *"] } } });
    expect(existsSync(join(root, "made", "x.txt"))).toBe(true);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    tmux.close();

    // A new session reads the rules: the same kind of line runs unasked.
    const next = await e2e.terminal([...BUNKER, "more files"], { cwd: root, env, cols: 120, rows: 50 });
    screen = await waitForCount(next, "Not asked.", 1);
    expect(screen).not.toContain("Run this command?");
    expect(existsSync(join(root, "again", "y.txt"))).toBe(true);
    expect(await quitWithCtrlD(next)).not.toBeNull();
  }, 60_000);

  test("a line with a variable in front and a redirection, and `npx eslint .`: each offers its program's prefix, says the rule it saves, and runs unasked next time (N11-10, N11-16)", async () => {
    const fake = e2e.serve([
      reply([run("NODE_ENV=test npm test > out.txt 2>&1")]), // asked: 2 (this session)
      reply([run("npx eslint .")]), // asked: 2
      reply([run("CI=1 npm test > out.txt 2>&1"), run("npx eslint .")]), // neither asked
      reply("Ran them."),
    ]);
    const { root, env } = e2e.workspace();
    // npx fails at once offline, where it would otherwise ask to reach the registry.
    const tmux = await e2e.terminal([...BUNKER, "test it"], { cwd: root, env: { ...env, npm_config_offline: "true" }, cols: 140, rows: 50 });
    let screen = await waitForQuestion(tmux, "Run this command?", 1);
    // The variable is shown as part of the command; the rule names the program and its subcommand.
    expect(screen).toContain("$ NODE_ENV=test npm test > out.txt 2>&1");
    expect(screen).toContain("2. Yes, and don't ask again for `npm test` commands this session");
    expect(screen).toContain("3. Yes, and always allow `run:npm test *` in this workspace (saved to your settings)");
    await press(tmux, "2");
    screen = await waitForQuestion(tmux, "Run this command?", 2);
    expect(screen).toContain("$ npx eslint .");
    expect(screen).toContain("2. Yes, and don't ask again for `npx eslint` commands this session");
    expect(screen).toContain("always allow `run:npx eslint *` in this workspace");
    await Bun.sleep(1_100);
    await press(tmux, "2");
    screen = await waitForCount(tmux, "Ran them.", 1);
    expect(count(screen, "Run this command?")).toBe(2);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    await fake.stop();
  }, 60_000);

  test("\"always allow\" for rm saves that command exactly, for this workspace only, and grants the session no more; another rm, or the same in another workspace, still asks (reviewer's R11-14, R12-12)", async () => {
    // The same session: the saved command again runs unasked, another rm is asked about (R12-12: it ran unasked).
    const fake = e2e.serve([reply([run("rm -rf build")]), reply([run("rm -rf src")]), reply([run("rm -rf build")]), reply("Removed.")]);
    const { root, env } = e2e.workspace();
    mkdirSync(join(root, "build"));
    mkdirSync(join(root, "src"));
    const settings = join(env.XDG_CONFIG_HOME!, "bunker", "settings.json");
    const tmux = await e2e.terminal([...BUNKER, "clean"], { cwd: root, env, cols: 140, rows: 50 });
    let screen = await waitForQuestion(tmux, "Run this command?", 1);
    // What is saved is said in the option itself: this command, this workspace; not every rm in every project.
    expect(screen).toContain("3. Yes, and always allow `run:rm -rf build` in this workspace (saved to your settings)");
    expect(screen).not.toContain("run:rm *");
    await press(tmux, "3");
    // Saved at once, said in one line, no second question (N12-27).
    screen = await waitForQuestion(tmux, "Run this command?", 2);
    expect(screen).not.toContain("Save this rule?");
    expect(screen.replace(/\s*\n[│ ]*/g, " ")).toContain(`for the workspace ${root}: run:rm -rf build`);
    expect(screen).toContain("$ rm -rf src");
    expect(existsSync(join(root, "src"))).toBe(true);
    await Bun.sleep(1_100);
    await press(tmux, "n");
    await waitForCount(tmux, "Why not (sent to Claude)?", 1);
    await Bun.sleep(1_100);
    await press(tmux, "Enter");
    screen = await waitForCount(tmux, "Removed.", 1);
    expect(count(screen, "Run this command?")).toBe(2);
    expect(existsSync(join(root, "src"))).toBe(true);
    expect(JSON.parse(readFileSync(settings, "utf8"))).toEqual({ workspaces: { [root]: { allow: ["run:rm -rf build"] } } });
    expect(existsSync(join(root, "build"))).toBe(false);
    expect(await quitWithCtrlD(tmux)).not.toBeNull();
    tmux.close();

    // Headless, nobody to ask: the saved command runs here; another rm here, and the same in another workspace, do not.
    mkdirSync(join(root, "build"));
    const here = e2e.serve([reply([run("rm -rf build"), run("rm -rf src")]), reply("ok")]);
    expect((await runHeadless(root, { ...env, ANTHROPIC_BASE_URL: here.url }, ["-p", "go", "--no-prompt"])).code).toBe(0);
    const [same, another] = toolResults(here.requests[1]);
    expect(same!.is_error).toBe(false);
    expect(existsSync(join(root, "build"))).toBe(false);
    expect(another!.content).toContain("needs approval");
    expect(existsSync(join(root, "src"))).toBe(true);
    const elsewhere = join(dirname(root), "other");
    mkdirSync(join(elsewhere, "build"), { recursive: true });
    const there = e2e.serve([reply([run("rm -rf build")]), reply("ok")]);
    expect((await runHeadless(elsewhere, { ...env, ANTHROPIC_BASE_URL: there.url }, ["-p", "go", "--no-prompt"])).code).toBe(0);
    expect(toolResults(there.requests[1])[0]!.content).toContain("needs approval");
    expect(existsSync(join(elsewhere, "build"))).toBe(true);
  }, 60_000);
});
