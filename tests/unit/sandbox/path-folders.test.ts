// Red team 5, F10: bunker started with the project's .venv active (or
// node_modules/.bin on PATH): a command that puts a `git` there runs as the
// person's next `git`, in any folder, unconfined. Each row runs the attack
// for real: first unconfined (the control: the person's git runs the planted
// one), then in bubblewrap, where it is set aside after the command; the
// person's git then runs the real one. What `pip install` adds stays.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { runAllowed } from "../../support/confined.ts";
import { unseenDir } from "../../support/context.ts";

const usable = detectSandbox().kind === "bubblewrap";
const base = unseenDir("bunker-path-folders-");
afterAll(() => rmSync(base, { recursive: true, force: true }));
const home = join(base, "home");
mkdirSync(home);
/** A program of the person's, later on PATH than the venv (`pip` of the system's Python). */
const sys = join(base, "sys");
mkdirSync(sys);
writeFileSync(join(sys, "pip"), "#!/bin/sh\necho system pip\n");
chmodSync(join(sys, "pip"), 0o755);
const MARK = join(base, "PWNED");

let n = 0;
/** A workspace with an active venv: PATH starts with its bin, as `source .venv/bin/activate` leaves it. */
function venvWorkspace(): { root: string; env: Record<string, string> } {
  const root = join(base, `ws${++n}`);
  mkdirSync(join(root, ".venv/bin"), { recursive: true });
  symlinkSync("/usr/bin/python3", join(root, ".venv/bin/python3"));
  writeFileSync(join(root, ".venv/bin/pip"), "#!/bin/sh\necho venv pip\n");
  chmodSync(join(root, ".venv/bin/pip"), 0o755);
  mkdirSync(join(root, "node_modules/.bin"), { recursive: true });
  // (Not this machine's PATH: a pyenv there has a shim for every tool any of its Pythons installed, pytest too.)
  const PATH = `${join(root, ".venv/bin")}:${join(root, "node_modules/.bin")}:${sys}:/usr/bin:/bin`;
  return { root, env: { PATH, HOME: home, VIRTUAL_ENV: join(root, ".venv") } };
}

/** The person's own shell afterwards, venv still active, in a folder outside the workspace (or in `cwd`). */
function personRuns(env: Record<string, string>, ...argv: string[]): string {
  return personRunsIn(base, env, ...argv);
}
function personRunsIn(cwd: string, env: Record<string, string>, ...argv: string[]): string {
  const r = Bun.spawnSync(argv, { cwd, env, stdout: "pipe", stderr: "pipe" });
  return r.stdout.toString() + r.stderr.toString();
}

const plantGit = `printf '#!/bin/sh\\ntouch ${MARK}\\nexec /usr/bin/git "$@"\\n' > .venv/bin/git && chmod +x .venv/bin/git && echo planted`;

describe.skipIf(!usable)("a PATH folder inside the workspace: what shadows the person's programs is set aside", () => {
  test("control: unconfined, the planted .venv/bin/git runs at the person's next git", async () => {
    const { root, env } = venvWorkspace();
    rmSync(MARK, { force: true });
    expect(await runAllowed(root, plantGit, { env, home, sandbox: "off" })).toContain("planted");
    expect(personRuns(env, "git", "--version")).toContain("git version");
    expect(existsSync(MARK)).toBe(true);
  });

  test("red team 5, F10: in the sandbox it is set aside with the mv that restores it, and the person's git is the real one", async () => {
    const { root, env } = venvWorkspace();
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, plantGit, { env, home });
    expect(out).toContain("planted");
    expect(out).toContain(`bunker set aside .venv/bin/git, which the command created (your shell runs it instead of /usr/bin/git when you type git`);
    expect(out).toContain("to restore it after checking it: mv .venv/bin/git.bunker-set-aside .venv/bin/git");
    expect(existsSync(join(root, ".venv/bin/git"))).toBe(false);
    expect(personRuns(env, "git", "--version")).toContain("git version");
    expect(existsSync(MARK)).toBe(false);
    // The line's mv restores it (and so the person's git would run it again: that is what the note warns of).
    expect(Bun.spawnSync(["sh", "-c", "mv .venv/bin/git.bunker-set-aside .venv/bin/git"], { cwd: root }).exitCode).toBe(0);
    personRuns(env, "git", "--version");
    expect(existsSync(MARK)).toBe(true);
  });

  test("a link in node_modules/.bin named like a program later on PATH is set aside too", async () => {
    const { root, env } = venvWorkspace();
    const out = await runAllowed(root, "mkdir -p node_modules/evil && printf '#!/bin/sh\\necho evil\\n' > node_modules/evil/cli && chmod +x node_modules/evil/cli && ln -s ../evil/cli node_modules/.bin/ls && echo linked", { env, home });
    expect(out).toContain("bunker set aside node_modules/.bin/ls, which the command created");
    expect(personRuns(env, "ls", "-d", ".")).toBe(".\n");
  });

  test("the PATH folder itself cannot be replaced by a link to a folder holding a git: it is pinned (a folder above a read-only mount: reviewer's R12-16)", async () => {
    const { root, env } = venvWorkspace();
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, `mkdir other && ${plantGit.replaceAll(".venv/bin/git", "other/git")} && mv .venv/bin .venv/bin.old && ln -s ../other .venv/bin`, { env, home });
    expect(out).toContain("Device or resource busy");
    personRuns(env, "git", "--version");
    expect(existsSync(MARK)).toBe(false);
  });

  test("a PATH folder that is not there yet (direnv's PATH_add bin before bin exists): a git made in it is set aside", async () => {
    const { root, env } = venvWorkspace();
    const withBin = { ...env, PATH: `${join(root, "bin")}:${env.PATH}` };
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, `mkdir bin && ${plantGit.replaceAll(".venv/bin/git", "bin/git")}`, { env: withBin, home });
    expect(out).toContain("bunker set aside bin/git, which the command created");
    personRuns(withBin, "git", "--version");
    expect(existsSync(MARK)).toBe(false);
  });

  // Red team 6, F10b: `export PATH=./node_modules/.bin:$PATH` (or an empty or `.` entry): the shell reads it from the folder the person is in.
  const inPackage = (entry: string) => {
    const { root, env } = venvWorkspace();
    mkdirSync(join(root, "packages/web"), { recursive: true });
    return { root, web: join(root, "packages/web"), env: { ...env, PATH: `${entry}:${sys}:/usr/bin:/bin` } };
  };
  const plantInPackage = (dir: string) => plantGit.replaceAll(".venv/bin/git", `packages/web/${dir}git`).replace("printf", `mkdir -p packages/web/${dir || "."} && printf`);

  for (const [entry, dir] of [["./node_modules/.bin", "node_modules/.bin/"], ["", ""]] as const) {
    test(`control, F10b: unconfined, with ${entry ? entry : "an empty entry"} on PATH, a git planted in packages/web/${dir} runs at the person's next git there`, async () => {
      const { root, web, env } = inPackage(entry);
      rmSync(MARK, { force: true });
      expect(await runAllowed(root, plantInPackage(dir), { env, home, sandbox: "off" })).toContain("planted");
      expect(personRunsIn(web, env, "sh", "-c", "git --version")).toContain("git version");
      expect(existsSync(MARK)).toBe(true);
    });

    test(`red team 6, F10b: with ${entry ? entry : "an empty entry"} on PATH, a git planted in packages/web/${dir} is set aside and the person's git there is the real one`, async () => {
      const { root, web, env } = inPackage(entry);
      rmSync(MARK, { force: true });
      const out = await runAllowed(root, plantInPackage(dir), { env, home });
      expect(out).toContain(`bunker set aside packages/web/${dir}git, which the command created (your shell runs it instead of /usr/bin/git when you type git`);
      expect(existsSync(join(web, `${dir}git`))).toBe(false);
      expect(personRunsIn(web, env, "sh", "-c", "git --version")).toContain("git version");
      expect(existsSync(MARK)).toBe(false);
    });
  }

  test("what pip install adds under new names stays and runs; the venv's own pip is read-only", async () => {
    const { root, env } = venvWorkspace();
    const out = await runAllowed(root, "printf '#!/bin/sh\\necho pytest ran\\n' > .venv/bin/pytest && chmod +x .venv/bin/pytest && pytest; echo changed >> .venv/bin/pip; pip", { env, home });
    expect(out).toContain("pytest ran");
    expect(out).toContain("Read-only file system");
    expect(out).not.toContain("set aside");
    expect(personRuns(env, "pytest")).toBe("pytest ran\n");
    expect(readFileSync(join(root, ".venv/bin/pip"), "utf8")).toBe("#!/bin/sh\necho venv pip\n");
  });

  test("a busy path that is no read-only mount of the sandbox's (the proxy's socket in its private /run) gets no such note", async () => {
    const { root, env } = venvWorkspace();
    // (The sandbox's own root is read-only, so /tmp cannot be moved at all: the socket's folder in /run is writable.)
    const out = await runAllowed(root, "mv /run/bunker-net/proxy.sock /run/bunker-net/moved.sock", { env, home });
    expect(out).toContain("Device or resource busy");
    expect(out).not.toContain("The sandbox blocked a write");
    // The same from inside a folder, by a relative name: still the sandbox's read-only pip.
    expect(await runAllowed(root, "cd .venv && rm bin/pip", { env, home })).toContain("note: The sandbox blocked a write");
  });

  test("under pyenv (a shim for every tool, pytest too, between the venv and the system): pip's pytest stays and runs, a planted git is still set aside", async () => {
    const { root, env } = venvWorkspace();
    const shims = join(home, ".pyenv/shims");
    mkdirSync(shims, { recursive: true });
    for (const name of ["pytest", "git", "python3"]) {
      writeFileSync(join(shims, name), `#!/bin/sh\necho pyenv shim ${name}\n`);
      chmodSync(join(shims, name), 0o755);
    }
    const pyenv = { ...env, PATH: env.PATH!.replace(`${join(root, "node_modules/.bin")}:`, `${join(root, "node_modules/.bin")}:${shims}:`) };
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, `printf '#!/bin/sh\\necho venv pytest ran\\n' > .venv/bin/pytest && chmod +x .venv/bin/pytest && ${plantGit}`, { env: pyenv, home });
    expect(out).not.toContain("set aside .venv/bin/pytest");
    expect(personRuns(pyenv, "pytest")).toBe("venv pytest ran\n");
    expect(out).toContain("bunker set aside .venv/bin/git, which the command created (your shell runs it instead of /usr/bin/git when you type git");
    personRuns(pyenv, "git", "--version");
    expect(existsSync(MARK)).toBe(false);
  });

  test("removing or replacing the venv's pip (what pip install -U pip does) fails, and the result says why", async () => {
    const { root, env } = venvWorkspace();
    const out = await runAllowed(root, "mv .venv/bin/pip /tmp/old-pip", { env, home });
    expect(out).toContain("Device or resource busy");
    expect(out).toContain("note: The sandbox blocked a write");
    expect(readFileSync(join(root, ".venv/bin/pip"), "utf8")).toBe("#!/bin/sh\necho venv pip\n");
  });
});
