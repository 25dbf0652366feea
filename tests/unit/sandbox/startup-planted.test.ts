// Red team 6's F10i and F10g: a dotfiles workspace (~/dotfiles, its files linked into the home as GNU stow does)
// where a command plants what the person's own shell runs later: an appended ~/.bashrc, a new fish conf.d file,
// a `git` in a folder PATH names with a literal `~`. Each row runs the attack unconfined first (the marker fires
// at the person's next terminal), then in the real sandbox under -A; then the person's own bash on the host.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runsLaterReason } from "../../../src/perms/runs-later.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { runAllowed } from "../../support/confined.ts";
import { unseenDir } from "../../support/context.ts";

const usable = detectSandbox().kind === "bubblewrap";
const base = unseenDir("bunker-startup-");
afterAll(() => rmSync(base, { recursive: true, force: true }));
const MARK = join(base, "PWNED");
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

let n = 0;
/** A home whose dotfiles repository is the workspace; `links`: home name → file or folder in ~/dotfiles. */
function dotfilesHome(links: Record<string, string>, files: Record<string, string> = {}, path = SYSTEM_PATH) {
  const home = join(base, `home${++n}`);
  const root = join(home, "dotfiles");
  mkdirSync(root, { recursive: true });
  Bun.spawnSync(["git", "init", "-q", root]);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  for (const [name, target] of Object.entries(links)) {
    mkdirSync(join(home, name, ".."), { recursive: true });
    symlinkSync(join(root, target), join(home, name));
  }
  return { home, root, env: { PATH: path, HOME: home } };
}

/** The person's next terminal: an interactive bash, or a fish-less stand-in that sources what fish would. */
function nextTerminal(env: Record<string, string>, command = "true"): string {
  const r = Bun.spawnSync(["bash", "-i", "-c", command], { cwd: base, env, stdout: "pipe", stderr: "pipe", timeout: 10_000 });
  return r.stdout.toString() + r.stderr.toString();
}

const append = `echo "touch ${MARK}" >> bash/.bashrc && echo tweaked`;

describe.skipIf(!usable)("red team 6, F10i: the person's shell startup files linked into the workspace (real bubblewrap)", () => {
  test("control: unconfined, the appended ~/.bashrc runs in the person's next terminal", async () => {
    const { home, root, env } = dotfilesHome({ ".bashrc": "bash/.bashrc" }, { "bash/.bashrc": "alias ll='ls -l'\n" });
    rmSync(MARK, { force: true });
    expect(await runAllowed(root, append, { env, home, sandbox: "off" })).toContain("tweaked");
    nextTerminal(env);
    expect(existsSync(MARK)).toBe(true);
  });

  test("in the sandbox ~/.bashrc's file is read-only, like ~/.gitconfig's, and the next terminal runs nothing new", async () => {
    const { home, root, env } = dotfilesHome({ ".bashrc": "bash/.bashrc", ".gitconfig": "git/gitconfig" }, { "bash/.bashrc": "alias ll='ls -l'\n", "git/gitconfig": "[user]\n\tname = a\n" });
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, `${append}; echo x >> git/gitconfig`, { env, home });
    expect(out).not.toContain("tweaked");
    expect(out.match(/Read-only file system/g)?.length).toBe(2);
    expect(readFileSync(join(root, "bash/.bashrc"), "utf8")).toBe("alias ll='ls -l'\n");
    nextTerminal(env);
    expect(existsSync(MARK)).toBe(false);
    // The rest of the workspace stays writable.
    expect(await runAllowed(root, "echo notes > README && echo wrote", { env, home })).toContain("wrote");
  });

  test("~/.zshrc linked to a file the command makes, and a new file in a linked ~/.config/fish, are set aside", async () => {
    const { home, root, env } = dotfilesHome({ ".zshrc": "zsh/.zshrc", ".config/fish": "fish" }, { "fish/config.fish": "set -x EDITOR vi\n" });
    const out = await runAllowed(root, `mkdir -p zsh fish/conf.d && echo "touch ${MARK}" > zsh/.zshrc && echo "touch ${MARK}" > fish/conf.d/evil.fish; echo "touch ${MARK}" >> fish/config.fish`, { env, home });
    expect(out).toContain("Read-only file system");
    expect(out).toContain("bunker set aside zsh/.zshrc, which the command created (your shell runs it when it starts: what it says runs in your next terminal (it is ~/.zshrc))");
    expect(out).toContain("bunker set aside fish/conf.d/evil.fish, which the command created (your shell runs it when it starts: what it says runs in your next terminal (it is in ~/.config/fish))");
    expect(existsSync(join(root, "zsh/.zshrc"))).toBe(false);
    expect(existsSync(join(root, "fish/conf.d/evil.fish"))).toBe(false);
    expect(readFileSync(join(root, "fish/config.fish"), "utf8")).toBe("set -x EDITOR vi\n");
  });

  test("what ~/.bashrc sources from the workspace (a file, and a loop over a folder) is read-only, and a new file there set aside", async () => {
    const bashrc = 'source ~/dotfiles/bash/aliases.sh\nfor f in $HOME/dotfiles/bash.d/*.sh; do . "$f"; done\n';
    const { home, root, env } = dotfilesHome({ ".bashrc": "bash/.bashrc" }, { "bash/.bashrc": bashrc, "bash/aliases.sh": "alias g=git\n", "bash.d/path.sh": "PATH=$PATH\n" });
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, `echo "touch ${MARK}" >> bash/aliases.sh; echo "touch ${MARK}" >> bash.d/path.sh; echo "touch ${MARK}" > bash.d/zz.sh`, { env, home });
    expect(out.match(/Read-only file system/g)?.length).toBe(2);
    expect(out).toContain("bunker set aside bash.d/zz.sh, which the command created (your shell runs it when it starts: what it says runs in your next terminal (~/.bashrc sources what is in it))");
    nextTerminal(env);
    expect(existsSync(MARK)).toBe(false);
  });

  test("~/.bashrc as a hard link to the workspace's file is read-only too", async () => {
    const { home, root, env } = dotfilesHome({}, { "bash/.bashrc": "alias ll='ls -l'\n" });
    linkSync(join(root, "bash/.bashrc"), join(home, ".bashrc"));
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, append, { env, home });
    expect(out).toContain("Read-only file system");
    nextTerminal(env);
    expect(existsSync(MARK)).toBe(false);
  });

  test("a folder ~/.bashrc puts on PATH, which bunker's own PATH lacks (started from an editor): a git planted there is set aside", async () => {
    const bashrc = 'export PATH="$HOME/dotfiles/bin:$PATH"\n';
    const { home, root, env } = dotfilesHome({ ".bashrc": "bash/.bashrc" }, { "bash/.bashrc": bashrc, "bin/.keep": "" });
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, `printf '#!/bin/sh\\ntouch ${MARK}\\nexec /usr/bin/git "$@"\\n' > bin/git && chmod +x bin/git && echo planted`, { env, home });
    expect(out).toContain(`bunker set aside bin/git, which the command created (your shell runs it instead of /usr/bin/git when you type git: ${join(root, "bin")} comes before /usr/bin on your PATH)`);
    nextTerminal(env, "cd / && git --version");
    expect(existsSync(MARK)).toBe(false);
  });

  test("a workspace that is the home itself: ~/.profile is read-only too", async () => {
    const home = join(base, `home${++n}`);
    mkdirSync(home);
    writeFileSync(join(home, ".profile"), "umask 022\n");
    const out = await runAllowed(home, `echo "touch ${MARK}" >> .profile; echo done`, { env: { PATH: SYSTEM_PATH, HOME: home }, home });
    expect(out).toContain("Read-only file system");
    expect(readFileSync(join(home, ".profile"), "utf8")).toBe("umask 022\n");
  });
});

describe.skipIf(!usable)("red team 6, F10g: a PATH entry written with a literal ~ (bash expands it when it looks a name up)", () => {
  const plant = `printf '#!/bin/sh\\ntouch ${MARK}\\nexec /usr/bin/git "$@"\\n' > bin/git && chmod +x bin/git && echo planted`;
  const tildePath = `~/dotfiles/bin:${SYSTEM_PATH}`;
  const personGit = (env: Record<string, string>) => Bun.spawnSync(["bash", "-c", "cd / && git --version"], { env, stdout: "pipe", stderr: "pipe" }).stdout.toString();

  test("control: unconfined, the person's bash runs the planted ~/dotfiles/bin/git in any folder", async () => {
    const { home, root, env } = dotfilesHome({}, { "bin/.keep": "" }, tildePath);
    rmSync(MARK, { force: true });
    expect(await runAllowed(root, plant, { env, home, sandbox: "off" })).toContain("planted");
    expect(personGit(env)).toContain("git version");
    expect(existsSync(MARK)).toBe(true);
  });

  test("in the sandbox the planted bin/git is set aside, and the person's git is the real one", async () => {
    const { home, root, env } = dotfilesHome({}, { "bin/.keep": "" }, tildePath);
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, plant, { env, home });
    expect(out).toContain(`bunker set aside bin/git, which the command created (your shell runs it instead of /usr/bin/git when you type git: ${join(home, "dotfiles/bin")} comes before /usr/bin on your PATH)`);
    expect(personGit(env)).toContain("git version");
    expect(existsSync(MARK)).toBe(false);
  });

  test("a pyvenv.cfg the command writes beside it does not pass the folder off as a new virtual environment", async () => {
    const { home, root, env } = dotfilesHome({}, { "bin/.keep": "" }, tildePath);
    rmSync(MARK, { force: true });
    const out = await runAllowed(root, `echo 'home = /usr/bin' > pyvenv.cfg && ${plant}`, { env, home });
    expect(out).toContain("bunker set aside bin/git, which the command created (your shell runs it instead of /usr/bin/git");
    expect(out).not.toContain("created a Python virtual environment");
    expect(personGit(env)).toContain("git version");
    expect(existsSync(MARK)).toBe(false);
  });
});

describe.skipIf(!usable)("the reviewer's R10-10: a dot-folder of the home that leads to the workspace, or to a folder holding it (real bubblewrap)", () => {
  const startup = `echo 'print("x")' >> profile_default/startup/00-mine.py; echo "open('${MARK}', 'w')" > profile_default/startup/01-new.py; echo done`;
  /** A home whose ~/.ipython is a link to the workspace (the person's IPython config repository). */
  function ipythonHome() {
    const home = join(base, `home${++n}`);
    const root = join(base, `ipython-config${n}`);
    mkdirSync(join(root, "profile_default/startup"), { recursive: true });
    mkdirSync(home);
    writeFileSync(join(root, "profile_default/startup/00-mine.py"), 'print("mine")\n');
    symlinkSync(root, join(home, ".ipython"));
    return { home, root, env: { PATH: SYSTEM_PATH, HOME: home } };
  }

  test("control: unconfined, a command adds a startup file IPython runs at its next start", async () => {
    const { home, root, env } = ipythonHome();
    expect(await runAllowed(root, startup, { env, home, sandbox: "off" })).toContain("done");
    expect(existsSync(join(home, ".ipython/profile_default/startup/01-new.py"))).toBe(true);
  });

  test("in the sandbox the workspace is read-only whole, the note says which dot-entry leads to it, and the write tools ask", async () => {
    const { home, root, env } = ipythonHome();
    const out = await runAllowed(root, startup.replace("; echo done", " && echo done"), { env, home });
    expect(out).toContain("profile_default/startup/00-mine.py: Read-only file system");
    expect(out).toContain("The workspace is read-only to commands: ~/.ipython in the person's home leads to it");
    expect(readdirSync(join(root, "profile_default/startup"))).toEqual(["00-mine.py"]);
    expect(runsLaterReason([root], join(root, "profile_default/startup/01-new.py"), [], SYSTEM_PATH, { env, home })).toBe("a dot-entry of your home: the program that reads it runs what it says (~/.ipython leads here)");
  });

  test("a granted folder ~/.config/awesome leads to (the workspace elsewhere) is shown read-only, not writable", async () => {
    const home = join(base, `home${++n}`);
    const awesome = join(base, `awesome-config${n}`);
    const root = join(base, `project${n}`);
    for (const d of [join(home, ".config"), awesome, root]) mkdirSync(d, { recursive: true });
    writeFileSync(join(awesome, "rc.lua"), "awful = require('awful')\n");
    symlinkSync(awesome, join(home, ".config/awesome"));
    const env = { PATH: SYSTEM_PATH, HOME: home };
    const out = await runAllowed(root, `echo 'os.execute("touch ${MARK}")' >> ${awesome}/rc.lua; echo x > a.txt && echo wrote`, { env, home, writable: [awesome] });
    expect(out).toContain("rc.lua: Read-only file system");
    expect(out).toContain("wrote");
    expect(readFileSync(join(awesome, "rc.lua"), "utf8")).toBe("awful = require('awful')\n");
  });
});
