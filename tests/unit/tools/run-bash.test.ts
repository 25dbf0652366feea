import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PermissionDenied } from "../../../src/perms/permissions.ts";
import { emptyGrants, type Grants } from "../../../src/perms/policy.ts";
import { createRunBashTool, type RunBashOptions } from "../../../src/tools/run-bash.ts";
import { BoundedOutput } from "../../../src/tools/bounded-output.ts";
import type { ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext, tempDir } from "../../support/context.ts";
import { alive } from "../../support/process.ts";
import { until } from "../../support/wait.ts";

const root = tempDir("bunker-runbash-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const allowAll = (): Grants => {
  const g = emptyGrants();
  g.allow.run.all = true;
  return g;
};

/** Unconfined, so pids are visible from here; the sandbox has its own test file. */
function tool(extra: Partial<RunBashOptions> = {}) {
  return createRunBashTool({ sandbox: "off", allowNet: false, allowEnv: [], gitWritable: false, killGraceMs: 300, ...extra });
}

async function run(command: string, opts: { timeout_ms?: number; tool?: ReturnType<typeof tool>; signal?: AbortSignal } = {}) {
  const ctx = makeContext(root, { grants: allowAll(), signal: opts.signal });
  const out = (await (opts.tool ?? tool()).run({ command, timeout_ms: opts.timeout_ms }, ctx)) as Exclude<ToolOutput, string>;
  return { ...out, ctx };
}


describe("exit status", () => {
  test("success", async () => {
    const r = await run("echo hello");
    expect(r.content).toBe("exit code 0\n\nhello");
    expect(r.isError).toBe(false);
  });
  test("a non-zero exit code is reported and marks the result as an error", async () => {
    const r = await run("echo oops >&2; exit 7");
    expect(r.content).toBe("exit code 7\n\noops");
    expect(r.isError).toBe(true);
  });
  test("death by signal names the signal", async () => {
    const r = await run("kill -SEGV $$");
    expect(r.content.split("\n")[0]).toBe("killed by signal SIGSEGV");
    expect(r.isError).toBe(true);
  });
  test("no output says so", async () => {
    expect((await run("true")).content).toBe("exit code 0\n\n(no output)");
  });
  test("runs in the workspace root with stdin closed", async () => {
    const r = await run("pwd; cat; echo done");
    expect(r.content).toBe(`exit code 0\n\n${root}\ndone`);
  });
  test("stdout and stderr are interleaved in the order they came", async () => {
    const r = await run("echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three");
    expect(r.content).toBe("exit code 0\n\none\ntwo\nthree");
  });
});

describe("timeouts and interruption", () => {
  test("a timeout stops the command, its background jobs and their children (checked by pid)", async () => {
    const t0 = performance.now();
    const r = await run("sleep 100 & echo $!; bash -c 'sleep 100 & echo $!; wait' & sleep 0.1; sleep 100", { timeout_ms: 500 });
    // Stopped at its 0.5 s, not after the 100 s its sleeps would take (3 s was tight for a loaded machine).
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(r.content.split("\n")[0]).toBe("timed out after 0.5s; the command and its children were stopped");
    expect(r.isError).toBe(true);
    const pids = r.content.split("\n").slice(2).map(Number).filter((n) => n > 0);
    expect(pids.length).toBe(2);
    // Killed, they still need the CPU to die: waited for, not given a fixed 50 ms (they would live 100 s).
    await until(() => pids.every((pid) => !alive(pid)), "the background jobs to die", 10_000);
  });
  test("a command that ignores SIGTERM is killed after the grace period", async () => {
    const t0 = performance.now();
    const r = await run("trap '' TERM; echo $$; sleep 100", { timeout_ms: 200 });
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(450); // 200 ms timeout + 300 ms grace
    expect(r.content).toContain("timed out after 0.2s");
    const pid = Number(r.content.split("\n")[2]);
    expect(alive(pid)).toBe(false);
  });
  test("background jobs do not outlive a command that exits normally", async () => {
    const r = await run("sleep 100 & echo $!");
    expect(r.content.split("\n")[0]).toBe("exit code 0");
    await until(() => !alive(Number(r.content.split("\n")[2])), "the background job to die", 10_000);
  });
  test("a child that leaves the group (setsid) goes with the command: at its end, and when its time is up (checked by pid)", async () => {
    const escape = "setsid sh -c 'echo $$; exec > /dev/null 2>&1; sleep 100' &";
    const ended = await run(`${escape} sleep 0.2`);
    const timedOut = await run(`${escape} sleep 100`, { timeout_ms: 500 });
    expect(ended.content.split("\n")[0]).toBe("exit code 0");
    expect(timedOut.content.split("\n")[0]).toContain("timed out");
    // Killed and reaped within bunker's 200 ms wait, or, on a loaded machine, soon after: never its 100 s.
    for (const r of [ended, timedOut]) await until(() => !alive(Number(r.content.split("\n")[2])), "the escaped process to die", 10_000);
  });
  test("Ctrl+C (the abort signal) stops the group and keeps the output so far", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const r = await run("echo before; sleep 100", { signal: ac.signal });
    expect(r.content).toBe("interrupted by the user; the command and its children were stopped\n\nbefore");
    expect(r.isError).toBe(true);
  });
  test("the timeout is clamped to at least 100 ms", async () => {
    expect((await run("sleep 5", { timeout_ms: 1 })).content).toContain("timed out after 0.1s");
  });
});

describe("output", () => {
  test("long output keeps the head and the tail and says how much was dropped", async () => {
    const r = await run("seq 1 100000");
    const total = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join("").length;
    const m = /\[… (\d+) bytes \((\d+) lines\) of output dropped …\]/.exec(r.content);
    expect(m).not.toBeNull();
    // The lines the cut held, with those kept, are every line of the output.
    const keptText = r.content.replace(/^exit code 0\n\n/, "").replace(`\n${m![0]}\n`, "");
    expect(Number(m![2]) + keptText.split("\n").length).toBe(100000); // the final newline is trimmed from the display
    expect(r.content.startsWith("exit code 0\n\n1\n2\n3\n")).toBe(true);
    expect(r.content.endsWith("99999\n100000")).toBe(true);
    const kept = Buffer.byteLength(r.content.replace(/^exit code 0\n\n/, "").replace(m![0], "")) - 2;
    expect(Number(m![1]) + kept).toBe(total - 1); // the final newline is trimmed from the display
    expect(r.content.length).toBeLessThan(31_000);
  });
  test("invalid UTF-8 is replaced, never fatal", async () => {
    const r = await run("printf 'a\\xff\\xfeb\\n'");
    expect(r.content).toBe("exit code 0\n\na\uFFFD\uFFFDb");
  });
  test("the bound never splits a character", () => {
    const b = new BoundedOutput(10);
    b.push(Buffer.from("ééééééééééé")); // 22 bytes of 2-byte characters
    const text = b.render();
    expect(text).not.toContain("\uFFFD");
    expect(text).toMatch(/^é+\n\[… \d+ bytes of output dropped …\]\né+$/);
  });
  test("many small chunks keep the latest bytes", () => {
    const b = new BoundedOutput(8);
    for (const c of "abcdefghijklmnop") b.push(Buffer.from(c));
    expect(b.render()).toBe("abcd\n[… 8 bytes of output dropped …]\nmnop");
  });
  test("a long or multi-line command is shown whole (the tool line cuts it at 100 characters)", async () => {
    const long = `echo ${"x".repeat(120)} && echo two\necho three`;
    const r = await run(long);
    expect(r.ctx.notices.slice(0, 2)).toEqual([`    $ echo ${"x".repeat(120)} && echo two`, "    > echo three"]);
  });
  test("a long command approved at a question is not printed again above its output: the question showed it whole", async () => {
    const long = `touch ${"y".repeat(120)}.txt && echo two`;
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    await tool({ availability: { kind: null, reason: "none here" }, sandbox: "auto" }).run({ command: long }, ctx);
    expect(ctx.approver.asked[0]!.run!.command).toBe(long);
    expect(ctx.notices.some((l) => l.includes("$ touch"))).toBe(false);
  });
  test("the person sees a live tail of the output (the command itself is on the tool line already)", async () => {
    const r = await run("echo first; sleep 0.3; echo second\\\u0007");
    expect(r.ctx.notices.some((l) => l.startsWith("$ "))).toBe(false);
    expect(r.ctx.notices.some((l) => l.includes("│ first"))).toBe(true);
    expect(r.ctx.notices.some((l) => l.includes("│ second\\x07"))).toBe(true);
  });
});

describe("environment", () => {
  test("secret-looking variables are dropped unless allowed by name", async () => {
    const env = {
      PATH: process.env.PATH,
      ANTHROPIC_API_KEY: "sk-ant",
      ANTHROPIC_AUTH_TOKEN: "tok",
      GITHUB_TOKEN: "gh",
      DB_PASSWORD: "pw",
      aws_secret_access_key: "aws",
      NPM_TOKEN: "npm",
      HARMLESS: "kept",
    };
    const r = await run("env | sort", { tool: tool({ env, allowEnv: ["NPM_TOKEN"] }) });
    const lines = r.content.split("\n");
    expect(lines).toContain("HARMLESS=kept");
    expect(lines).toContain("NPM_TOKEN=npm");
    for (const gone of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GITHUB_TOKEN", "DB_PASSWORD", "aws_secret_access_key"]) {
      expect(lines.some((l) => l.startsWith(gone + "="))).toBe(false);
    }
  });
});

describe("update checks", () => {
  test("npm, update-notifier and pip are told not to check for a newer version (each check would ask for a registry); the person's own setting wins", async () => {
    const home = tempDir("bunker-runbash-home-");
    const base = { PATH: process.env.PATH, HOME: home };
    const probe = "npm config get update-notifier; printenv NO_UPDATE_NOTIFIER PIP_DISABLE_PIP_VERSION_CHECK";
    expect((await run(probe, { tool: tool({ env: base }) })).content).toBe("exit code 0\n\nfalse\n1\n1");
    const own = { ...base, npm_config_update_notifier: "true", NO_UPDATE_NOTIFIER: "", PIP_DISABLE_PIP_VERSION_CHECK: "0" };
    expect((await run(probe, { tool: tool({ env: own }) })).content).toBe("exit code 0\n\ntrue\n\n0");
  }, 20_000);
});

describe("permission", () => {
  test("without a grant and without prompts it is refused, naming --allow-run", async () => {
    const ctx = makeContext(root, { interactive: false });
    const p = tool().run({ command: "touch made-by-bash" }, ctx);
    await expect(p).rejects.toBeInstanceOf(PermissionDenied);
    await expect(p).rejects.toThrow("--allow-run");
    expect(await Bun.file(`${root}/made-by-bash`).exists()).toBe(false);
  });
  test("the person is shown the command, directory, sandbox and network, and a prefix", async () => {
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    const out = await tool({ availability: { kind: null, reason: "none here" }, sandbox: "auto" }).run({ command: "git commit --dry-run 2>/dev/null; echo ok" }, ctx);
    expect(typeof out === "string" ? out : out.content).toContain("ok");
    expect(ctx.approver.asked[0]!.run).toEqual({
      command: "git commit --dry-run 2>/dev/null; echo ok",
      cwd: root,
      sandboxed: false,
      network: true,
      prefixes: ["git commit"],
      saves: ["run:git commit *"],
      reasons: ["`git` with these arguments is not read-only"],
    });
  });
  test("the prefix offered is that of the part not yet allowed, and the prompt says why it asks", async () => {
    const ctx = makeContext(root, { answers: [{ answer: "target-session" }, { answer: "deny" }, { answer: "deny" }] });
    const t = tool({ availability: { kind: null, reason: "none here" }, sandbox: "auto" });
    await t.run({ command: "touch a.txt" }, ctx);
    // `touch` is allowed for the session now: the line is asked about for `rm`, and that is what is offered.
    await expect(t.run({ command: "touch b.txt && rm -rf src" }, ctx)).rejects.toThrow("refused");
    expect(ctx.approver.asked[1]!.run).toMatchObject({ prefixes: ["rm"], reasons: ["`rm` is not granted"] });
    // A covered program reaching outside: no prefix would help, so none is offered; the reason names the path.
    await expect(t.run({ command: "touch /tmp/bunker-never-made" }, ctx)).rejects.toThrow("refused");
    expect(ctx.approver.asked[2]!.run).toMatchObject({ prefixes: [], reasons: ["`touch` names /tmp/bunker-never-made, outside the workspace"] });
    expect(await Bun.file("/tmp/bunker-never-made").exists()).toBe(false);
  });
  test("a program not granted that also reaches outside says both", async () => {
    const ctx = makeContext(root, { answers: [{ answer: "deny" }] });
    const t = tool({ availability: { kind: null, reason: "none here" }, sandbox: "auto" });
    await expect(t.run({ command: "rm -rf /" }, ctx)).rejects.toThrow("refused");
    expect(ctx.approver.asked[0]!.run!.reasons).toEqual(["`rm` is not granted, and it names /, outside the workspace"]);
  });
  test("a refusal with a reason goes back to the model and nothing runs", async () => {
    const ctx = makeContext(root, { answers: [{ answer: "deny", feedback: "use the test script" }] });
    const p = tool().run({ command: "touch refused" }, ctx);
    await expect(p).rejects.toThrow("use the test script");
    expect(await Bun.file(`${root}/refused`).exists()).toBe(false);
  });
  test("--sandbox on without a sandbox refuses to run, saying how to fix it", async () => {
    const ctx = makeContext(root, { grants: allowAll() });
    const t = tool({ sandbox: "on", availability: { kind: null, reason: "bubblewrap (bwrap) is not installed" } });
    const p = t.run({ command: "touch unconfined" }, ctx);
    await expect(p).rejects.toThrow(/--sandbox on.*bubblewrap \(bwrap\) is not installed.*apt-get install bubblewrap.*--sandbox off/s);
    expect(await Bun.file(`${root}/unconfined`).exists()).toBe(false);
  });
  test("an empty command is an error", async () => {
    const ctx = makeContext(root, { grants: allowAll() });
    await expect(tool().run({ command: "  " }, ctx)).rejects.toThrow("command is empty");
    await expect(tool().run({ command: "echo a\0b" }, ctx)).rejects.toThrow("NUL byte");
  });
});

describe("a repository's own files cannot make git run a program", () => {
  const git = Bun.which("git");
  test.skipIf(!git)("core.fsmonitor in .git/config is not run by git status", async () => {
    const repo = `${root}/fsmon`;
    Bun.spawnSync(["git", "init", "-q", repo]);
    Bun.spawnSync(["git", "-C", repo, "config", "core.fsmonitor", `touch ${repo}/FSMONITOR_RAN; false`]);
    const r = await run(`cd fsmon && git status --short && echo listed`);
    expect(r.content).toContain("listed");
    expect(await Bun.file(`${repo}/FSMONITOR_RAN`).exists()).toBe(false);
  });

  test.skipIf(!git)("a folder shaped like a bare repository is not used implicitly", async () => {
    // Plain files a cloned project could carry: HEAD, config (with a program to run), objects/, refs/.
    const bare = `${root}/fixtures/repo`;
    Bun.spawnSync(["git", "init", "-q", "--bare", bare]);
    Bun.spawnSync(["git", "-C", bare, "config", "core.fsmonitor", `touch ${bare}/BARE_RAN; false`]);
    Bun.spawnSync(["git", "-C", bare, "config", "core.worktree", "."]);
    const r = await run(`cd fixtures/repo && git status`);
    expect(r.content).toContain("cannot use bare repository");
    expect(await Bun.file(`${bare}/BARE_RAN`).exists()).toBe(false);
  });
});

